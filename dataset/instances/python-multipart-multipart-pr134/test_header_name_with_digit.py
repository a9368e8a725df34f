"""A part header whose name contains a digit (X-Trace1) is a valid header; python-multipart
0.0.5 accepts only letters and hyphens there and raises MultipartParseError."""
from multipart.multipart import MultipartParser


def _collector(store, key):
    def callback(data, start, end):
        store[key] = store.get(key, b"") + data[start:end]
    return callback


def test_part_header_name_with_digit():
    headers = []
    current = {}

    def header_end():
        headers.append((current.pop("field"), current.pop("value")))

    callbacks = {
        "on_header_field": _collector(current, "field"),
        "on_header_value": _collector(current, "value"),
        "on_header_end": header_end,
    }
    body = (
        b"--sep\r\n"
        b'Content-Disposition: form-data; name="note"\r\n'
        b"X-Trace1: abc\r\n"
        b"\r\n"
        b"hello\r\n"
        b"--sep--\r\n"
    )
    parser = MultipartParser(b"sep", callbacks)
    assert parser.write(body) == len(body)
    parser.finalize()
    assert headers == [
        (b"Content-Disposition", b'form-data; name="note"'),
        (b"X-Trace1", b"abc"),
    ]
