"""WrappedRequest.get_header (the urllib.request.Request-like view of a scrapy Request that
http.cookiejar reads) with a header the request does not carry and the default default=None:
scrapy 2.8 passes the None it got from Headers.get straight to to_unicode, which only takes
bytes or str and raises TypeError. cookiejar's own Request.get_header returns the default."""
from scrapy.http import Request
from scrapy.http.cookies import WrappedRequest


def test_get_header_missing_returns_default():
    wrapped = WrappedRequest(Request("https://example.com/page", headers={"Accept": "text/html"}))
    assert wrapped.get_header("Accept") == "text/html"
    assert wrapped.get_header("Referer") is None
