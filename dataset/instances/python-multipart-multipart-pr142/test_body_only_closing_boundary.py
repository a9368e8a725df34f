"""A multipart body with no parts at all is just the closing delimiter '--sep--';
python-multipart 0.0.5 expects CRLF after the boundary and raises MultipartParseError."""
from multipart.multipart import MultipartParser


def test_body_with_only_the_closing_boundary():
    events = []
    callbacks = {
        "on_part_begin": lambda: events.append("part_begin"),
        "on_end": lambda: events.append("end"),
    }
    body = b"--sep--\r\n"
    parser = MultipartParser(b"sep", callbacks)
    assert parser.write(body) == len(body)
    parser.finalize()
    assert events == ["end"]
