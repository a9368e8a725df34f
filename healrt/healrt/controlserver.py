"""The controller's end of the control channel, for healrt's tests and benchmarks.

The runtime never imports this: it listens on a Unix socket, accepts one runtime, and hands every
message to `on_message` on a reader thread, so callbacks can answer with `send`/`read`.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import tempfile
import threading
from typing import Any

from .session import JsonLineReader


class ControlServer:
    def __init__(self, timeout: float) -> None:
        self._timeout = timeout
        self._dir = tempfile.mkdtemp(prefix="hrt")  # short: Unix socket paths are limited to ~107 bytes
        self.path = os.path.join(self._dir, "control.sock")
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(self.path)
        self._server.listen(1)
        self._server.settimeout(timeout)
        self._conn: socket.socket | None = None
        self._reader: JsonLineReader | None = None
        self.errors: list[BaseException] = []
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def on_message(self, message: dict[str, Any]) -> None:
        """Called for each message the runtime sends outside a `read` of a callback."""

    def send(self, command: dict[str, Any]) -> None:
        assert self._conn is not None
        self._conn.sendall(json.dumps(command).encode() + b"\n")

    def read(self) -> dict[str, Any] | None:
        """The runtime's next message, or None once it has gone."""
        assert self._reader is not None
        return self._reader.read()

    def join(self) -> None:
        """Waits for the runtime to disconnect, then re-raises what went wrong on the reader thread."""
        if self._conn is None:
            # The runtime may have ended without connecting: a connection of our own ends the
            # accept, and the reader thread with it, instead of waiting out the timeout.
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as waker, contextlib.suppress(OSError):
                waker.connect(self.path)
        self._thread.join(self._timeout)
        self._server.close()
        shutil.rmtree(self._dir, ignore_errors=True)
        if self.errors:
            raise self.errors[0]

    def _run(self) -> None:
        try:
            self._conn, _ = self._server.accept()
            self._conn.settimeout(self._timeout)
            self._reader = JsonLineReader(self._conn)
            while (message := self.read()) is not None:
                self.on_message(message)
        except BaseException as error:  # surfaced by join() in the caller's thread
            self.errors.append(error)
        finally:
            if self._conn is not None:
                self._conn.close()
