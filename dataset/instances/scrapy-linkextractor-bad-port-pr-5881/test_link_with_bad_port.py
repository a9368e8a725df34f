"""LxmlLinkExtractor.extract_links on a page with one malformed link whose port is not a
number (href="http://example.com:port/a"): scrapy 2.8 passes every href to
w3lib.url.safe_url_string, which reads urlsplit(...).port and raises ValueError, so the whole
page fails. The malformed link should be skipped and the others still extracted."""
from scrapy.http import HtmlResponse
from scrapy.linkextractors import LinkExtractor


def test_malformed_port_link_is_skipped():
    body = (b'<html><body><a href="/docs">docs</a>'
            b'<a href="http://example.com:port/a">broken</a>'
            b'<a href="https://example.org/blog">blog</a></body></html>')
    response = HtmlResponse("https://example.com/", body=body, encoding="utf-8")
    urls = [link.url for link in LinkExtractor().extract_links(response)]
    assert urls == ["https://example.com/docs", "https://example.org/blog"]
