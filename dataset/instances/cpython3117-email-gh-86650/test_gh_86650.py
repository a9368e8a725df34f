"""gh-86650: a Message-ID whose id-left starts with '[' (Outlook one-off style)."""
import email
import email.policy
from email.message import EmailMessage

ODD_ID = "<[T3JpZ2luYWw==@mail.example.org]>"


def test_assign_message_id_starting_with_bracket():
    msg = EmailMessage()

    msg["Message-ID"] = ODD_ID

    header = msg["Message-ID"]
    assert str(header) == ODD_ID
    assert header.defects  # not a valid msg-id, so it is reported as a defect


def test_parse_message_id_starting_with_bracket():
    raw = ("Message-ID: " + ODD_ID + "\nSubject: hi\n\nbody\n").encode("ascii")

    msg = email.message_from_bytes(raw, policy=email.policy.default)

    assert str(msg["Message-ID"]) == ODD_ID
    assert msg["Subject"] == "hi"


def test_valid_message_id_unaffected():
    msg = EmailMessage()
    msg["Message-ID"] = "<abc.def@mail.example.org>"

    assert str(msg["Message-ID"]) == "<abc.def@mail.example.org>"
    assert not msg["Message-ID"].defects
