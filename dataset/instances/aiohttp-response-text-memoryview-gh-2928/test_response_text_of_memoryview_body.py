"""aiohttp GH 2928 (open): web.Response.text fails with AttributeError for some bodies.

``Response.text`` decodes whatever the body is with ``.decode(charset)``. A body given as a
``memoryview`` is not bytes/bytearray, so the body setter wraps it in a ``BytesPayload``
from the payload registry (which accepts memoryview), and ``BytesPayload.decode`` calls
``self._value.decode(...)`` on the memoryview, which has no ``decode`` method:
``AttributeError: 'memoryview' object has no attribute 'decode'``. The same body as bytes
reads back as text fine; a memoryview body should too.
"""
from aiohttp import web


def test_text_of_a_response_whose_body_is_a_memoryview_is_the_decoded_text():
    resp = web.Response(body=memoryview("héllo".encode("utf-8")), content_type="text/plain", charset="utf-8")
    assert resp.text == "héllo"
