"""requests.cookies.morsel_to_cookie (used whenever a Morsel is stored in a RequestsCookieJar,
e.g. jar.update(SimpleCookie(...))) parses a Morsel's Expires attribute with the single template
'%a, %d-%b-%Y %H:%M:%S GMT'. The date form RFC 6265 servers send, and that http.cookies itself
writes, separates the fields with spaces ('Thu, 01 Jan 2037 00:00:00 GMT'), so time.strptime
raises ValueError: time data ... does not match format, and the cookie cannot be stored."""
import calendar
from http.cookies import SimpleCookie

from requests.cookies import RequestsCookieJar, morsel_to_cookie


def test_morsels_with_standard_expires_dates_become_cookies():
    jar = RequestsCookieJar()
    jar.update(SimpleCookie("auth_session=abc; path=/; expires=Thu, 01 Jan 2037 00:00:00 GMT"))
    assert jar["auth_session"] == "abc"
    (cookie,) = list(jar)
    assert cookie.expires == calendar.timegm((2037, 1, 1, 0, 0, 0))

    # the dashed form keeps parsing as before
    dashed = SimpleCookie()
    dashed["legacy"] = "v"
    dashed["legacy"]["expires"] = "Fri, 02-Jan-2037 12:30:00 GMT"
    assert morsel_to_cookie(dashed["legacy"]).expires == calendar.timegm((2037, 1, 2, 12, 30, 0))
