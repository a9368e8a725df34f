"""StaticFileHandler.should_return_304 with an If-Modified-Since header that parses but
names an impossible date (31 Feb): tornado 6.2 builds a datetime from it and raises
ValueError; the header should just be ignored."""
import datetime

from tornado import httputil, web


class _Connection:
    """Just enough of an HTTP connection for a RequestHandler that never writes."""

    def set_close_callback(self, callback):
        self.close_callback = callback


def test_impossible_if_modified_since_is_ignored(tmp_path):
    app = web.Application([(r"/static/(.*)", web.StaticFileHandler, {"path": str(tmp_path)})])
    request = httputil.HTTPServerRequest(
        method="GET",
        uri="/static/logo.txt",
        headers=httputil.HTTPHeaders({"If-Modified-Since": "Sat, 31 Feb 2024 10:00:00 GMT"}),
        connection=_Connection(),
    )
    handler = web.StaticFileHandler(app, request, path=str(tmp_path))
    handler.modified = datetime.datetime(2024, 1, 1, 12, 0, 0)
    assert handler.should_return_304() is False
