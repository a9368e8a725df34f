"""The stdlib gRPC client against a fake HTTP/2 server that enforces small flow-control windows."""

from __future__ import annotations

import json
import socket
import struct
import threading
from typing import Any

import pytest

from guardeval import grpcwire, static

WINDOW = 1000  # the fake server's stream window: a large request must wait for its updates


def frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


class FakeServer:
    """Accepts one call; answers with `answer` (bytes of a message) or with trailers only (None)."""

    def __init__(self, answer: bytes | None) -> None:
        self.answer = answer
        self.request: bytes = b""
        self.path = b""
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.listener.getsockname()[1]}"
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        conn, _ = self.listener.accept()
        with conn:
            buffer = b""

            def read(size: int) -> bytes:
                nonlocal buffer
                while len(buffer) < size:
                    buffer += conn.recv(65536)
                data, buffer = buffer[:size], buffer[size:]
                return data

            assert read(24) == b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
            conn.sendall(frame(4, 0, 0, struct.pack(">HI", 4, WINDOW)))
            unacknowledged = 0
            body = b""
            while True:
                header = read(9)
                length, kind, flags = int.from_bytes(header[:3], "big"), header[3], header[4]
                payload = read(length)
                if kind == 1:
                    self.path = payload
                elif kind == 0:
                    assert length <= WINDOW
                    body += payload
                    unacknowledged += length
                    if unacknowledged >= WINDOW // 2:
                        increment = struct.pack(">I", unacknowledged)
                        conn.sendall(frame(8, 0, 1, increment) + frame(8, 0, 0, increment))
                        unacknowledged = 0
                    if flags & 1:
                        break
            self.request = body[5:5 + int.from_bytes(body[1:5], "big")]
            if self.answer is None:
                conn.sendall(frame(1, 5, 1, b"\x88"))  # trailers only: a gRPC error
            else:
                message = b"\x00" + struct.pack(">I", len(self.answer)) + self.answer
                conn.sendall(frame(1, 4, 1, b"\x88") + frame(0, 0, 1, message[:3]) + frame(0, 0, 1, message[3:])
                             + frame(1, 5, 1, b"\x88"))


def test_a_large_request_is_sent_within_the_windows_and_the_answer_decoded() -> None:
    modules = [{"file": f"m{i}.py", "module": f"m{i}", "ast": {"_type": "Module", "body": ["x" * 5000]}} for i in range(40)]
    analysis = {"heal_point": 2, "delta": [{"location": "name:x", "kind": "both", "before": None, "after": "'v'"}],
                "crash_point": {"file": "m0.py", "line": 7, "col": 4, "callers": [{"file": "m1.py", "line": 3}]},
                "modules": modules, "modules_truncated": True}
    answer = {"verdict": 1, "source": "name:x", "witness": [{"file": "m0.py", "line": 8, "description": "open"}],
              "sink": {"op": "open", "line": 8}, "incomplete": [], "functions_analyzed": 3}
    server = FakeServer(grpcwire.encode(static.RESPONSE, answer))
    stage = static.StaticStage(server.address)
    verdict = stage.analyze(analysis, "x = 'v'", {"operations": {}})
    server.thread.join(10)
    assert b"/healbench.guard.v1.GuardService/AnalyzeHeal" in server.path
    sent = grpcwire.decode(static.REQUEST, server.request)
    assert len(server.request) > 10 * WINDOW
    assert (sent["heal_code"], sent["heal_point"], sent["modules_truncated"]) == ("x = 'v'", 2, True)
    # A repeated field decodes as a list, empty when absent (proto3): a delta entry with no aliases.
    assert sent["delta"] == [{"location": "name:x", "kind": "both", "after": "'v'", "also": []}]
    assert sent["crash_point"]["callers"] == [{"file": "m1.py", "line": 3}]
    assert json.loads(sent["modules"][39]["ast_json"]) == modules[39]["ast"]
    assert verdict["verdict"] == "TAINTED" and verdict["sink"] == {"op": "open", "line": 8}
    assert verdict["witness"] == [{"file": "m0.py", "line": 8, "description": "open"}]


def test_a_call_without_a_message_is_an_error() -> None:
    server = FakeServer(None)
    assert static.StaticStage(server.address).analyze({}, "", {})["verdict"] == "ERROR"


@pytest.mark.parametrize("value", [0, 1, 127, 128, 300, 2**31 - 1, -1, -(2**31)])
def test_varints_round_trip(value: int) -> None:
    schema: dict[str, Any] = {"n": (3, "int")}
    assert grpcwire.decode(schema, grpcwire.encode(schema, {"n": value})).get("n", 0) == value


def test_an_unavailable_guard_is_reported_not_faked(tmp_path: Any) -> None:
    closed = socket.create_server(("127.0.0.1", 0))
    address = f"127.0.0.1:{closed.getsockname()[1]}"
    closed.close()
    stage = static.open_stage(address, {"operations": {}}, tmp_path)
    assert not stage.available and "gives no verdict" in stage.reason
