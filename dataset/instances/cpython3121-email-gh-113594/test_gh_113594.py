"""A header parsed from bytes that holds undecodable 8-bit text and then a word too long to fit
on one line must still serialize: the refolder has to keep the raw bytes as unknown-8bit."""
import email
import email.policy

RAW = b"Subject: \xe4\xf6 " + b"x" * 90 + b"\r\n\r\nbody\r\n"


def test_refold_8bit_header_with_long_ascii_word():
    msg = email.message_from_bytes(RAW, policy=email.policy.default)
    original = str(msg["subject"])

    flat = msg.as_bytes()

    lines = flat.split(b"\n")
    assert all(len(line) <= 78 for line in lines)
    reparsed = email.message_from_bytes(flat, policy=email.policy.default)
    assert str(reparsed["subject"]) == original
    assert reparsed.get_content().strip() == "body"
    assert msg.as_string().splitlines()[0].startswith("Subject: =?unknown-8bit?")
