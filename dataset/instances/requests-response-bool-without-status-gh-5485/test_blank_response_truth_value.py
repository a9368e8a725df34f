"""A Response that nothing has filled in yet (requests.Response(), as test doubles and error
handlers build them) has status_code None. Its truth value goes through Response.ok, which calls
raise_for_status, and that compares the status with `400 <= self.status_code < 500`: with None,
TypeError: '<=' not supported between instances of 'int' and 'NoneType', instead of the blank
response simply not being ok (falsy)."""
import requests


def test_a_blank_response_is_falsy_and_not_ok():
    blank = requests.Response()
    assert blank.status_code is None
    assert not blank
    assert blank.ok is False

    # responses with a status keep their answers
    found = requests.Response()
    found.status_code = 200
    assert found and found.ok
    missing = requests.Response()
    missing.status_code = 404
    missing.reason = "Not Found"
    assert not missing and missing.ok is False
