"""gh-134152: a header value that ends right after an opening '[' delimiter."""
import email
import email.policy
from email.message import EmailMessage


def test_message_id_ending_after_open_bracket():
    msg = EmailMessage()

    msg["Message-ID"] = "<T@["

    header = msg["Message-ID"]
    assert str(header).startswith("<T@[")
    assert header.defects  # the truncated value is reported, not silently accepted


def test_parsed_message_with_truncated_domain_literal():
    raw = b"Message-ID: <T@[\nSubject: cut short\n\nbody\n"

    msg = email.message_from_bytes(raw, policy=email.policy.default)

    assert str(msg["Message-ID"]).startswith("<T@[")
    assert msg["Subject"] == "cut short"


def test_complete_domain_literal_still_parses():
    msg = EmailMessage()
    msg["Message-ID"] = "<T@[127.0.0.1]>"

    assert str(msg["Message-ID"]) == "<T@[127.0.0.1]>"
