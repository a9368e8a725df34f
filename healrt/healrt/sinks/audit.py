"""The audit hook (`sys.addaudithook`): the operations whose audit event carries the caller's own
key input object are decided there. An audit hook cannot be removed, so it is installed only when
the guard is armed (first heal).
"""

from __future__ import annotations

import sys
from typing import Any

from ..vault import state
from .decisions import decide

# Operation -> (audit event, {parameter: position in the event's arguments}), for the operations
# whose event carries the caller's own key input object (socket.create_connection and urlopen
# resolve or rewrite theirs first: they are wrapped instead).
AUDITED: dict[str, tuple[str, dict[str, int]]] = {
    "open": ("open", {"file": 0, "mode": 1}),
    "io.open": ("open", {"file": 0, "mode": 1}),
    "os.open": ("open", {"path": 0, "flags": 2}),
    "os.remove": ("os.remove", {"path": 0}),
    "os.unlink": ("os.remove", {"path": 0}),
    "os.rmdir": ("os.rmdir", {"path": 0}),
    "os.removedirs": ("os.rmdir", {"name": 0}),
    "shutil.rmtree": ("shutil.rmtree", {"path": 0}),
    "os.rename": ("os.rename", {"src": 0, "dst": 1}),
    "os.replace": ("os.rename", {"src": 0, "dst": 1}),
    "shutil.move": ("shutil.move", {"src": 0, "dst": 1}),
    "shutil.copyfile": ("shutil.copyfile", {"src": 0, "dst": 1}),
    "shutil.copy": ("shutil.copyfile", {"src": 0, "dst": 1}),
    "shutil.copy2": ("shutil.copyfile", {"src": 0, "dst": 1}),
    "os.mkdir": ("os.mkdir", {"path": 0, "mode": 1}),
    "os.makedirs": ("os.mkdir", {"name": 0, "mode": 1}),
    "os.chmod": ("os.chmod", {"path": 0, "mode": 1}),
    "os.chown": ("os.chown", {"path": 0}),
    "os.truncate": ("os.truncate", {"path": 0}),
    "os.symlink": ("os.symlink", {"src": 0, "dst": 1}),
    "os.link": ("os.link", {"src": 0, "dst": 1}),
    "subprocess.Popen": ("subprocess.Popen", {"executable": 0, "args": 1}),
    "subprocess.run": ("subprocess.Popen", {"args": 1}),
    "subprocess.call": ("subprocess.Popen", {"args": 1}),
    "subprocess.check_call": ("subprocess.Popen", {"args": 1}),
    "subprocess.check_output": ("subprocess.Popen", {"args": 1}),
    "os.popen": ("subprocess.Popen", {"cmd": 1}),
    "os.execv": ("os.exec", {"path": 0, "args": 1}),
    "os.execve": ("os.exec", {"path": 0, "args": 1}),
    "os.posix_spawn": ("os.posix_spawn", {"path": 0, "argv": 1}),
    "os.kill": ("os.kill", {"pid": 0}),
    "os.fork": ("os.fork", {}),
    "os.chdir": ("os.chdir", {"path": 0}),
    "socket.socket.connect": ("socket.connect", {"address": 1}),
    "socket.socket.connect_ex": ("socket.connect", {"address": 1}),
    "socket.socket.bind": ("socket.bind", {"address": 1}),
    "socket.socket.sendto": ("socket.sendto", {"address": 1}),
    "sqlite3.connect": ("sqlite3.connect", {"database": 0}),
}
# The "open" event serves builtin open (mode given) and os.open (mode None): which one it is.
_OPEN_KIND = {"open": True, "io.open": True, "os.open": False}


def hook(event: str, args: tuple[Any, ...]) -> None:
    vault = state()
    if event == "open" and vault.heal_running is not None and args and type(args[0]) is int \
            and args[0] == vault.control_fd:
        raise PermissionError("HealGuard: heal code may not open healrt's control descriptor")
    entries = vault.events.get(event)
    if not entries:
        return
    chosen: str | None = None
    inputs: list[tuple[str, Any]] = []
    positions: set[int] = set()
    has_key_input = False
    for operation, params in entries:
        if event == "open" and _OPEN_KIND.get(operation.op, True) != (len(args) > 1 and args[1] is not None):
            continue
        if operation.when is not None:
            at = params.get(operation.when.param)
            if at is None or at >= len(args) or not operation.when.holds(args[at]):
                continue
        chosen = chosen or operation.op
        has_key_input = has_key_input or operation.has_key_input
        for name in (operation.arg, *operation.also_check):
            at = params.get(name) if name is not None else None
            if at is not None and at < len(args) and at not in positions:
                positions.add(at)
                inputs.append((name, args[at]))
    if chosen is None:
        return
    local = vault.local
    caller = sys._getframe(1)  # the Python frame whose call raised this event
    last = getattr(local, "observed", None)
    if last is not None and any(value is last[0] for _, value in inputs) and _strictly_above(last[1], caller):
        # The next event of the same call (Popen, then posix_spawn on its argv, raised deeper
        # inside it): recorded once. A separate call, even with the same object, is decided anew.
        return
    local.observed = None
    if decide(chosen, inputs, has_key_input) and inputs:
        local.observed = (inputs[0][1], caller)


def _strictly_above(frame: Any, caller: Any) -> bool:
    """Whether `frame` is a caller of `caller` (still on its stack, and not `caller` itself)."""
    current = caller.f_back
    while current is not None:
        if current is frame:
            return True
        current = current.f_back
    return False
