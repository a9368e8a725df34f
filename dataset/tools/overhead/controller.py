"""A minimal controller for benchmarks: speaks docs/control-protocol.md over a Unix socket."""

from __future__ import annotations

import time
from typing import Any, Callable

from hbdata import healrt_module

TIMEOUT = 120
ControlServer = healrt_module("controlserver").ControlServer


class FakeController(ControlServer):
    """Accepts one runtime; calls on_crash(self, context, parsed_ns) at each crash, after parsing it.

    Without on_crash every crash is answered with `reraise`.
    """

    def __init__(self, on_crash: Callable[[FakeController, dict[str, Any], int], None] | None = None) -> None:
        self._on_crash = on_crash or (lambda ctl, context, parsed_ns: ctl.send({"cmd": "reraise"}))
        self.crashes = 0
        self.outcome: dict[str, Any] | None = None
        super().__init__(TIMEOUT)

    def request(self, command: dict[str, Any]) -> tuple[dict[str, Any], int]:
        """Sends a probe/heal; returns its result and the nanoseconds until it was parsed."""
        sent = time.perf_counter_ns()
        self.send(command)
        while True:
            message = self.read()
            if message is None:
                raise RuntimeError("runtime went away")
            if message.get("type") in ("probe_result", "heal_result"):
                return message, time.perf_counter_ns() - sent

    def on_message(self, message: dict[str, Any]) -> None:
        if message.get("type") == "crash":
            parsed_ns = time.perf_counter_ns()
            self.crashes += 1
            self._on_crash(self, message["context"], parsed_ns)
        elif message.get("type") == "finished":
            self.outcome = message["outcome"]
