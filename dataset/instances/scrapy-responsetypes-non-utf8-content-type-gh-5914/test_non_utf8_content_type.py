"""ResponseTypes.from_content_type with a Content-Type header value that is not valid UTF-8
(a latin-1 byte in the charset parameter, as some servers send): scrapy 2.8 decodes the raw
header with to_unicode's strict UTF-8 and raises UnicodeDecodeError, although only the ASCII
mimetype before ";" matters. The text/html mimetype should still give HtmlResponse."""
from scrapy.http import HtmlResponse
from scrapy.responsetypes import responsetypes


def test_latin1_byte_in_content_type():
    assert responsetypes.from_content_type(b"text/html; charset=utf-8") is HtmlResponse
    assert responsetypes.from_content_type(b"text/html; charset=\xe9uro") is HtmlResponse
