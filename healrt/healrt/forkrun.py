"""Run a function in a forked copy of the process and get its JSON-able result back through a pipe."""

from __future__ import annotations

import json
import os
import select
import signal
import time
import traceback
from typing import Any, Callable

from .vault import state


def _cut_control_channel() -> None:
    """The copy never speaks for the process: its control descriptor becomes /dev/null (the number
    stays taken, so nothing the task opens gets it and is mistaken for it), and the result goes
    back through the pipe. A probe or heal in the fork cannot write a message as the runtime."""
    fd = state().control_fd
    if fd is None:
        return
    null = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
    os.dup2(null, fd, inheritable=False)
    os.close(null)


def run_in_fork(task: Callable[[], dict[str, Any]], timeout: float) -> dict[str, Any]:
    """The task's result, or {"ok": False, "timed_out": bool, "error": str} if the child failed."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        _cut_control_channel()
        try:
            payload = json.dumps(task(), default=repr)
        except BaseException:
            payload = json.dumps({"ok": False, "timed_out": False, "error": traceback.format_exc()})
        try:
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(payload.encode("utf-8", "replace"))
        finally:
            # Never return into the parent's code (pytest, atexit handlers, the control socket).
            os._exit(0)
    os.close(write_end)
    data = bytearray()
    deadline = time.monotonic() + timeout
    timed_out = False
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([read_end], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(read_end, 65536)
            if not chunk:
                break
            data += chunk
    finally:
        os.close(read_end)
        if timed_out:
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    if timed_out:
        return {"ok": False, "timed_out": True, "error": f"timed out after {timeout:g} s"}
    try:
        result = json.loads(data.decode("utf-8"))
    except ValueError:
        return {"ok": False, "timed_out": False, "error": "the forked run died without a result"}
    return result if isinstance(result, dict) else {"ok": False, "timed_out": False, "error": "bad result"}
