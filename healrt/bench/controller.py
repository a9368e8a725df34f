"""A minimal controller for benchmarks: speaks docs/control-protocol.md over a Unix socket."""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
import threading
import time
from typing import Any, Callable

from healrt.session import JsonLineReader

TIMEOUT = 120


class FakeController:
    """Accepts one runtime; calls on_crash(self, context, parsed_ns) at each crash, after parsing it.

    Without on_crash every crash is answered with `reraise`.
    """

    def __init__(self, on_crash: Callable[[FakeController, dict[str, Any], int], None] | None = None) -> None:
        self._dir = tempfile.mkdtemp(prefix="hbc")  # short: Unix socket paths are limited to ~107 bytes
        self.path = os.path.join(self._dir, "control.sock")
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(self.path)
        self._server.listen(1)
        self._server.settimeout(TIMEOUT)
        self._on_crash = on_crash or (lambda ctl, context, parsed_ns: ctl.send({"cmd": "reraise"}))
        self._conn: socket.socket | None = None
        self._reader: JsonLineReader | None = None
        self.crashes = 0
        self.outcome: dict[str, Any] | None = None
        self.errors: list[BaseException] = []
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def send(self, command: dict[str, Any]) -> None:
        assert self._conn is not None
        self._conn.sendall(json.dumps(command).encode() + b"\n")

    def request(self, command: dict[str, Any]) -> tuple[dict[str, Any], int]:
        """Sends a probe/heal; returns its result and the nanoseconds until it was parsed."""
        sent = time.perf_counter_ns()
        self.send(command)
        while True:
            message = self._receive()
            if message is None:
                raise RuntimeError("runtime went away")
            if message.get("type") in ("probe_result", "heal_result"):
                return message, time.perf_counter_ns() - sent

    def join(self) -> None:
        self._thread.join(TIMEOUT)
        self._server.close()
        shutil.rmtree(self._dir, ignore_errors=True)
        if self.errors:
            raise self.errors[0]

    def _receive(self) -> dict[str, Any] | None:
        assert self._reader is not None
        message = self._reader.read()
        return message

    def _run(self) -> None:
        try:
            self._conn, _ = self._server.accept()
            self._conn.settimeout(TIMEOUT)
            self._reader = JsonLineReader(self._conn)
            while (message := self._receive()) is not None:
                if message.get("type") == "crash":
                    parsed_ns = time.perf_counter_ns()
                    self.crashes += 1
                    self._on_crash(self, message["context"], parsed_ns)
                elif message.get("type") == "finished":
                    self.outcome = message["outcome"]
        except BaseException as error:  # surfaced by join()
            self.errors.append(error)
        finally:
            if self._conn is not None:
                self._conn.close()
