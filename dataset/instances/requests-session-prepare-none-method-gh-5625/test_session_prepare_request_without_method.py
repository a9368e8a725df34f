"""A Request built without a method (Request's own default, method=None) prepares fine on its own:
PreparedRequest.prepare_method leaves a None method as None. Session.prepare_request, though,
upper-cases the method itself before handing it on (`method.upper()` on the request's method),
so preparing the same request through a Session raises AttributeError: 'NoneType' object has no
attribute 'upper', instead of a PreparedRequest with the session's settings merged in."""
import requests


def test_session_prepares_a_request_without_a_method_like_request_prepare_does():
    session = requests.Session()
    session.trust_env = False  # no ~/.netrc lookup: the run does not depend on the machine
    session.headers["X-Session"] = "kept"
    session.params = {"page": "2"}
    request = requests.Request(url="http://example.invalid/items", headers={"Accept": "text/plain"})

    alone = request.prepare()
    assert alone.method is None

    prepared = session.prepare_request(request)
    assert prepared.method is None
    assert prepared.url == "http://example.invalid/items?page=2"
    assert prepared.headers["X-Session"] == "kept"
    assert prepared.headers["Accept"] == "text/plain"
    # a request with a method keeps upper-casing it
    assert session.prepare_request(requests.Request("patch", "http://example.invalid/")).method == "PATCH"
