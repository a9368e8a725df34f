"""Client side of the control channel: newline-delimited JSON over a Unix stream socket."""

from __future__ import annotations

import json
import os
import platform
import socket
import threading
from typing import Any

from . import PROTOCOL_VERSION

CONTROL_ENV = "HEALRT_CONTROL"
# An already connected control socket inherited by fd number (replay mode's restarts, replay.py).
CONTROL_FD_ENV = "HEALRT_CONTROL_FD"


class JsonLineReader:
    """Reads one JSON object per line from a stream socket; both ends of the channel use it."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._buffer = b""

    def read(self) -> dict[str, Any] | None:
        """The next message ({} for a line that is not an object), or None once the peer has gone."""
        while b"\n" not in self._buffer:
            chunk = self._sock.recv(65536)
            if not chunk:
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        message = json.loads(line)
        return message if isinstance(message, dict) else {}


class Session:
    def __init__(self, path: str | None = None, fd: int | None = None) -> None:
        if fd is not None:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, fileno=fd)
        else:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self._sock.connect(path)
        self._reader = JsonLineReader(self._sock)
        # Events may be sent from any thread; one line must never interleave with another.
        self._send_lock = threading.Lock()

    @classmethod
    def from_environment(cls) -> Session | None:
        fd = os.environ.pop(CONTROL_FD_ENV, None)
        if fd is not None:
            return cls(fd=int(fd))
        path = os.environ.get(CONTROL_ENV)
        return cls(path) if path else None

    def fileno(self) -> int:
        return self._sock.fileno()

    def hello(self) -> None:
        self.send({"type": "hello", "pid": os.getpid(), "python": platform.python_version(),
                   "protocol": PROTOCOL_VERSION})

    def send(self, message: dict[str, Any]) -> None:
        # ASCII JSON: a program's text may hold lone surrogates (surrogateescape'd bytes), which UTF-8 cannot encode
        # and which would otherwise lose the message, the outcome among them.
        line = json.dumps(message, default=repr).encode("ascii") + b"\n"
        with self._send_lock:
            self._sock.sendall(line)

    def receive(self) -> dict[str, Any] | None:
        """The next command, or None when the controller has gone away."""
        return self._reader.read()

    def close(self) -> None:
        self._sock.close()
