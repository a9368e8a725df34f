"""CaseInsensitiveDict (the type of every request's and response's headers) compares equal to
any Mapping by first copying the other mapping into a CaseInsensitiveDict, whose __setitem__
lower-cases each key. A mapping with a key that is not text (an int, a tuple) makes that copy
raise AttributeError: 'int' object has no attribute 'lower', so `headers == {1: 'a'}` crashes
where a dict comparison would simply be False."""
from requests.structures import CaseInsensitiveDict


def test_headers_compare_unequal_to_a_mapping_with_non_text_keys():
    headers = CaseInsensitiveDict({"Content-Type": "text/html", "Accept": "*/*"})
    assert (headers == {"Content-Type": "text/html", 404: "not found"}) is False
    assert headers != {1: "a"}
    assert (CaseInsensitiveDict() == {(1, 2): "pair"}) is False
    # text keys keep comparing case-insensitively
    assert headers == {"content-type": "text/html", "ACCEPT": "*/*"}
    assert headers != {"content-type": "text/plain", "accept": "*/*"}
