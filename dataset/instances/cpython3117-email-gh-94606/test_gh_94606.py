"""gh-94606: Message.get_payload(decode=True) on a str body holding a lone surrogate.

Only surrogates in U+DC80..U+DCFF can be turned back into bytes with surrogateescape; any
other lone surrogate in a str payload must not make get_payload() blow up.
"""
import email.message


def _message_with_body(body):
    msg = email.message.Message()
    msg.set_payload(body)
    return msg


def test_decode_payload_with_high_surrogate():
    msg = _message_with_body("abc\ud800def")

    decoded = msg.get_payload(decode=True)

    assert isinstance(decoded, bytes)
    assert decoded.startswith(b"abc")
    assert decoded.endswith(b"def")


def test_escaped_bytes_still_round_trip():
    # The surrogateescape path must keep working for bodies that came from bytes.
    msg = _message_with_body(b"abc\xe9def".decode("ascii", "surrogateescape"))

    assert msg.get_payload(decode=True) == b"abc\xe9def"
