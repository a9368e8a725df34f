"""RequestsCookieJar.set_cookie strips escaped quotes from a quoted cookie value. Up to 2.33 it
did so only for values that have `startswith`; 2.34.0's inline-types rewrite narrowed the guard
to `value is not None`, so storing a cookie whose value is a number, as the reproduction of
GH 7003 does (jar.set('token', 0, domain=..., path=...)), now reaches `value.startswith('"')`:
AttributeError: 'int' object has no attribute 'startswith'."""
from requests.cookies import RequestsCookieJar


def test_a_numeric_cookie_value_is_stored_and_read_back():
    jar = RequestsCookieJar()
    jar.set("token", 0, domain="example.com", path="/")
    assert list(jar.items()) == [("token", 0)]
    assert jar.get("token", domain="example.com", path="/") == 0
    assert jar["token"] == 0
    jar["count"] = 7
    assert jar.get_dict() == {"token": 0, "count": 7}

    # a quoted text value keeps having its escaped quotes stripped
    jar.set("q", '"a\\"b"', domain="example.com", path="/")
    assert jar.get("q", domain="example.com", path="/") == '"ab"'
