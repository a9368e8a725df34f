"""gh-80361: get_payload() when the charset parameter is RFC 2231 encoded (charset*=...)."""
import email


RAW = (b"Content-Type: text/plain; charset*=us-ascii''utf-8\n"
       b"Content-Transfer-Encoding: 8bit\n"
       b"\n"
       b"na\xc3\xafve r\xc3\xa9sum\xc3\xa9\n")


def test_get_payload_with_rfc2231_charset():
    msg = email.message_from_bytes(RAW)

    assert msg.get_payload() == "na\u00efve r\u00e9sum\u00e9\n"


def test_plain_charset_parameter_unchanged():
    msg = email.message_from_bytes(RAW.replace(b"charset*=us-ascii''utf-8", b"charset=utf-8"))

    assert msg.get_payload() == "na\u00efve r\u00e9sum\u00e9\n"
