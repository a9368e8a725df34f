"""gh-130637: POP3.stat() when the server's STAT reply has a non-numeric message count."""
import io
import poplib

import pytest


class _RecordingSocket:
    def __init__(self):
        self.sent = []

    def sendall(self, data):
        self.sent.append(data)


def _client(server_replies):
    # A POP3 object wired to canned server replies instead of a live connection.
    client = poplib.POP3.__new__(poplib.POP3)
    client._debugging = 0
    client.sock = _RecordingSocket()
    client.file = io.BytesIO(server_replies)
    return client


def test_stat_with_non_numeric_count_is_a_protocol_error():
    client = _client(b"+OK lots 1024\r\n")

    with pytest.raises(poplib.error_proto):
        client.stat()
    assert client.sock.sent == [b"STAT\r\n"]


def test_stat_with_well_formed_reply():
    client = _client(b"+OK 2 320\r\n")

    assert client.stat() == (2, 320)
