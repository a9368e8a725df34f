"""Response.iter_lines(decode_unicode=True, delimiter=...) splits each chunk iter_content yields
with the delimiter. iter_content(decode_unicode=True) yields text only when the response has an
encoding; without one (no charset in the headers) it yields bytes, as documented since GH 3359.
A text delimiter, the natural companion of decode_unicode=True, is then applied to a bytes chunk:
TypeError: a bytes-like object is required, not 'str' (and a bytes delimiter on text chunks:
must be str or None, not bytes)."""
import io

import requests


def _response(body, encoding):
    response = requests.Response()
    response.status_code = 200
    response.raw = io.BytesIO(body)
    response.encoding = encoding
    return response


def test_iter_lines_splits_with_a_delimiter_of_either_kind():
    # no encoding known: iter_content(decode_unicode=True) yields bytes, and so do the lines
    undecoded = _response(b"alpha;beta;gamma", None)
    assert list(undecoded.iter_lines(chunk_size=4, decode_unicode=True, delimiter=";")) == [b"alpha", b"beta", b"gamma"]

    # an encoding known: text chunks, split by a bytes delimiter as well
    decoded = _response("\u00e9t\u00e9;hiver".encode("utf-8"), "utf-8")
    assert list(decoded.iter_lines(decode_unicode=True, delimiter=b";")) == ["\u00e9t\u00e9", "hiver"]

    # matching kinds keep working
    assert list(_response(b"a|b", None).iter_lines(delimiter=b"|")) == [b"a", b"b"]
    assert list(_response(b"a|b", "ascii").iter_lines(decode_unicode=True, delimiter="|")) == ["a", "b"]
