"""gh-76511: as_string() of a message whose body has 8-bit bytes but declares charset=ascii."""
import email


RAW = (b"Content-Type: text/plain; charset=ascii\n"
       b"Content-Transfer-Encoding: 8bit\n"
       b"\n"
       b"caf\xe9 au lait\n")


def test_as_string_with_8bit_body_in_ascii_charset():
    msg = email.message_from_bytes(RAW)

    text = msg.as_string()

    assert isinstance(text, str)
    head, _, body = text.partition("\n\n")
    assert "Content-Type: text/plain" in head
    assert body.startswith("caf")
    assert body.rstrip("\n").endswith("au lait")


def test_as_bytes_keeps_the_original_body():
    # The bytes generator never needed re-encoding; the fix must not change it.
    msg = email.message_from_bytes(RAW)

    assert msg.as_bytes().endswith(b"caf\xe9 au lait\n")
