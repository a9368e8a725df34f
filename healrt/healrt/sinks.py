"""Sinks of the dynamic guard: where protected operations are stopped before their effect.

- Audit hooks (`sys.addaudithook`) for the operations whose audit event carries the original key
  input (AUDITED: open, os.remove, os.rename, shutil.rmtree, subprocess.Popen, socket.connect, ...).
  An audit hook cannot be removed, so it is installed only when the guard is armed (first heal).
- Wrappers for every other operation of the policy: those without an audit event (socket send,
  os.umask, HTTPConnection.request, os.environ assignment), those whose event sees converted
  arguments (os.system and os.putenv get bytes), pathlib methods whose key input is the receiver,
  and the project's own operations named by a subject policy. A wrapper replaces the attribute on
  its module or class and every binding of the original in instrumented modules (`from os import
  system`). sqlite3's C classes cannot be patched: `sqlite3.connect` passes a factory subclass
  whose execute methods are guarded (connections opened before the first heal are not).
- `@healrt.protected` for functions of the project (every argument is a key input unless `arg`
  or `index` narrows it).
- Declared check conditions (fmtrewrite.py rewrites their reads in branch tests).

A decision (`decide`) is a violation when:
1. heal code is running (every value the heal computes carries its label), or
2. a key input carries a label (taint.find_label: the value, its items, attributes and object and
   location labels), or
3. the operation has no key input (`arg: null`) and a heal has been applied, or
4. the conservative rule for bool/None holds (guard.py).
enforce raises HealGuardViolation before the operation runs; observe records it and lets it run.
A call that only a waived bool/None location would flag (a heal the static stage found CLEAN,
inside the frames its analysis covered) is not a violation: it runs, recorded once as
`guard_conservative_waived`.

Decisions made while healrt itself works (`internal`) are skipped, as are nested ones while a
violation of the enclosing operation is being let through in observe mode (one record per call).
"""

from __future__ import annotations

import functools
import inspect
import pathlib
import socket
import sys
from typing import Any, Callable

from . import taint
from .policy import Operation
from .vault import state

EVENT_CAP = 100  # events sent (and records kept) per kind; later ones are only counted
VALUE_REPR_CAP = 200
_SLOW_FRAMES = 40  # frames walked by the conservative rule
WAIVED = "conservative_waived"  # a finding of a waived bool/None location (not a violation)


class HealGuardViolation(Exception):
    """A protected operation was reached with a key input derived from a heal (enforce mode).
    `decision` holds the guard's record: operation, key input, and the flow path."""

    def __init__(self, decision: dict[str, Any]) -> None:
        self.decision = decision
        key = decision.get("key_input") or {}
        detail = f" ({key['name']}={key['value']})" if key else ""
        super().__init__(f"HealGuard blocked {decision['op']}{detail}: rule {decision['rule']}, "
                         f"heal point(s) {decision['heal_points']}")


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
_SQLITE_CLASSES = ("sqlite3.Connection", "sqlite3.Cursor")
_PATH_METHODS = ("__new__", "__truediv__", "__rtruediv__", "joinpath", "with_name", "with_stem", "with_suffix",
                 "with_segments", "relative_to", "absolute", "resolve", "expanduser", "readlink", "__fspath__",
                 "as_posix")
_PATH_PROPERTIES = ("parent", "name", "stem", "suffix")


# ---------------------------------------------------------------- decisions

def decide(op: str, inputs: list[tuple[str, Any]], has_key_input: bool) -> bool:
    """Decide one call of a protected operation; True if it was a violation (observe mode)."""
    vault = state()
    local = vault.local
    if vault.mode == "off" or getattr(local, "internal", 0) or getattr(local, "busy", False):
        return False
    if not vault.armed and vault.heal_running is None:
        return False
    local.busy = True
    try:
        finding = _finding(vault, inputs, has_key_input)
        if finding is None:
            return False
        if finding[0] == WAIVED:
            waived(op, *finding[1:])
        else:
            violation(op, *finding)
        return True
    finally:
        local.busy = False


def _finding(vault: Any, inputs: list[tuple[str, Any]], has_key_input: bool) -> tuple[Any, ...] | None:
    """(rule, key name, key value, flow source: a label or a source dict, extra flow steps) or None."""
    first = inputs[0] if inputs else (None, None)
    if vault.heal_running is not None:
        return "heal_code", first[0], first[1], vault.heal_running, []
    for name, value in inputs:
        label = taint.find_label(value)
        if label is not None:
            return "taint", name, value, label, []
    if not has_key_input:
        return "no_key_input", None, None, vault.heal_points[-1], []
    if vault.conservative:
        waiving = _waiving(vault.conservative)
        armed = [entry for entry in vault.conservative if id(entry) not in waiving]
        waived_here = [entry for entry in vault.conservative if id(entry) in waiving]
        for rule, entries in (("conservative", armed), (WAIVED, waived_here)):
            hit = conservative_hit(vault, entries) if entries else None
            if hit is not None:
                label, read = hit
                return rule, first[0], first[1], label, [read]
    return None


def _waiving(entries: list[dict[str, Any]]) -> set[int]:
    """ids of the bool/None entries waived here: their heal's static verdict was clean and the
    outermost frame its analysis covered is on this thread's stack."""
    if all(entry["waived_within"] is None for entry in entries):
        return set()
    stack: set[int] = set()
    frame: Any = sys._getframe()
    while frame is not None:
        stack.add(id(frame))
        frame = frame.f_back
    return {id(entry) for entry in entries if entry["waived_within"] is not None and id(entry["waived_within"]) in stack}


def conservative_hit(vault: Any, entries: list[dict[str, Any]]) -> tuple[Any, dict[str, Any]] | None:
    """The conservative rule for bool/None written by a heal (docs/control-protocol.md): a project
    frame on the current stack reads one of the `entries`' locations (its code names the attribute
    or calls getattr; for an item, any frame may compute the key) and has the location's owner at
    hand (a local or free variable, an attribute of one, or its module)."""
    frame: Any = sys._getframe(1)
    for _ in range(_SLOW_FRAMES):
        if frame is None:
            return None
        code = frame.f_code
        if vault.is_project is not None and vault.is_project(code.co_filename):
            for entry in entries:
                if _reads(frame, code, entry):
                    return entry["label"], {"kind": "step", "op": f"reads {entry['location']}",
                                            "file": code.co_filename, "line": frame.f_lineno}
        frame = frame.f_back
    return None


def _reads(frame: Any, code: Any, entry: dict[str, Any]) -> bool:
    kind, scope, key = entry["kind"], entry["scope"], entry["key"]
    if kind == "local":
        return code is scope
    if kind == "global":
        return frame.f_globals is scope and key in code.co_names
    # An attribute is read by name (or through getattr with a computed one). An item's key is often
    # computed (`memo[key]`, `d.get(k)`, iteration), so a frame holding the container (a local, an attribute of
    # one, a global its code names) may read any item.
    if kind == "attr" and key not in code.co_names and "getattr" not in code.co_names:
        return False
    if isinstance(scope, type(sys)) and vars(scope) is frame.f_globals:
        return True  # an attribute of the frame's own module
    if any(frame.f_globals.get(name) is scope for name in code.co_names):
        return True  # a global the frame's code names (`SETTINGS['strict']` of a module-level dict)
    for value in frame.f_locals.values():
        if value is scope:
            return True
        try:
            attributes = object.__getattribute__(value, "__dict__")
        except AttributeError:
            continue
        if isinstance(attributes, dict) and any(item is scope for item in attributes.values()):
            return True
    return False


def violation(op: str, rule: str, key_name: str | None, value: Any, origin: Any,
              extra: list[dict[str, Any]]) -> None:
    """Record (and in enforce mode raise) one violation. `origin`: the key input's label, or the
    source dict of the heal whose code runs (heal_code) or that was applied last (no_key_input)."""
    vault = state()
    enforce = vault.mode == "enforce"
    record = _decision("guard_violation", "blocked" if enforce else "observed", op, rule, key_name, value, origin, extra)
    vault.violations += 1
    report(record)
    if enforce:
        raise HealGuardViolation(record)


def waived(op: str, key_name: str | None, value: Any, origin: Any, extra: list[dict[str, Any]]) -> None:
    """Record a call only a waived bool/None location would have flagged (it runs, in every mode)."""
    record = _decision("guard_conservative_waived", "waived", op, "conservative", key_name, value, origin, extra)
    report({**record, "static_verdict": "clean"})


def _decision(kind: str, verdict: str, op: str, rule: str, key_name: str | None, value: Any, origin: Any,
              extra: list[dict[str, Any]]) -> dict[str, Any]:
    vault = state()
    file, line = sink_location(vault)
    if isinstance(origin, dict):
        heals = {origin["heal_point"]}
        flow = [dict(origin, kind="source")]
    else:
        heals = set(taint.heals_of(origin))
        flow = taint.flow_of(origin)
    sink = {"kind": "sink", "op": op, "file": file, "line": line}
    if key_name is not None:
        sink["key_input"] = key_name
    return {
        "kind": kind, "heal_point": min(heals) if heals else 0, "heal_points": sorted(heals),
        "stage": "dynamic", "verdict": verdict, "reason": op, "mode": vault.mode,
        "rule": rule, "op": op, "sink": {"op": op, "file": file, "line": line},
        "key_input": None if key_name is None else {"name": key_name, "value": _short(value)},
        "flow": [*flow, *extra, sink],
    }


def report(record: dict[str, Any]) -> None:
    """Keep the record (capped) and send it as an event (capped per kind), as healrt's own work."""
    vault = state()
    kind = record["kind"]
    if len(vault.records) < EVENT_CAP:
        vault.records.append(record)
    sent = vault.events_sent.get(kind, 0)
    if vault.emit is None or sent >= EVENT_CAP:
        return
    vault.events_sent[kind] = sent + 1
    local = vault.local
    local.internal = getattr(local, "internal", 0) + 1
    try:
        fields = {k: v for k, v in record.items() if k != "kind"}
        vault.emit(kind, **fields)
    except OSError:
        pass  # the controller is gone; the record stays in the outcome
    finally:
        local.internal -= 1


def sink_location(vault: Any) -> tuple[str, int]:
    """The innermost project frame calling the operation, else the innermost frame outside healrt."""
    fallback = None
    frame: Any = sys._getframe(1)
    while frame is not None:
        file = frame.f_code.co_filename
        if not file.startswith(taint.HEALRT_DIR):
            if fallback is None:
                fallback = (file, frame.f_lineno or 0)
            if vault.is_project is not None and vault.is_project(file):
                return file, frame.f_lineno or 0
        frame = frame.f_back
    return fallback or ("?", 0)


def _short(value: Any) -> str:
    try:
        text = repr(taint.plain(value))
    except BaseException as error:  # a broken __repr__ must not break the decision
        text = f"<repr failed: {type(error).__name__}>"
    return text if len(text) <= VALUE_REPR_CAP else text[:VALUE_REPR_CAP] + "..."


# ---------------------------------------------------------------- audit hook

def _audit(event: str, args: tuple[Any, ...]) -> None:
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


# ---------------------------------------------------------------- wrappers

def _signature(function: Any) -> inspect.Signature | None:
    try:
        return inspect.signature(function)
    except (TypeError, ValueError):
        return None


def key_inputs(operation: Operation, signature: inspect.Signature | None, method: bool,
               args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[tuple[str, Any]]:
    """The values of the operation's key input and also_check parameters in one call."""
    names = list(signature.parameters) if signature is not None else []
    found: list[tuple[str, Any]] = []
    index = operation.index
    key_position = (0 if index == "receiver" else len(args) - 1 if index == "last"
                    else index + (1 if method else 0) if isinstance(index, int) else None)
    for number, name in enumerate((operation.arg, *operation.also_check)):
        if name is None:
            continue
        if name in kwargs:
            found.append((name, kwargs[name]))
            continue
        position: int | None = names.index(name) if name in names else None
        if position is None and key_position is not None and not names:
            # No signature (C methods): also_check parameters follow the key input in order.
            position = key_position + number
        if position is not None and 0 <= position < len(args):
            found.append((name, args[position]))
    return found


def _applies(operation: Operation, signature: inspect.Signature | None, method: bool,
             args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether the operation's `when` holds for this call (the parameter's default if not passed)."""
    when = operation.when
    if when is None:
        return True
    if when.param in kwargs:
        return when.holds(kwargs[when.param])
    if signature is None or when.param not in signature.parameters:
        return True  # cannot tell: conservative
    position = list(signature.parameters).index(when.param)
    if position < len(args):
        return when.holds(args[position])
    default = signature.parameters[when.param].default
    return default is not inspect.Parameter.empty and when.holds(default)


def guarded(operation: Operation, original: Callable[..., Any], method: bool) -> Callable[..., Any]:
    """A wrapper that decides each call before running the original."""
    signature = _signature(original)

    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        vault = state()
        if (not vault.armed and vault.heal_running is None) or not _applies(operation, signature, method, args, kwargs) \
                or (method and args and _is_control_socket(args[0], vault)):
            return original(*args, **kwargs)
        inputs = key_inputs(operation, signature, method, args, kwargs)
        if not decide(operation.op, inputs, operation.has_key_input):
            return original(*args, **kwargs)
        with _quiet(vault):  # observed: let it run, without recording its inner operations again
            return original(*args, **kwargs)

    return wrapper


def _is_control_socket(receiver: Any, vault: Any) -> bool:
    """healrt's own control channel (its messages are never the program's network sends)."""
    return vault.control_fd is not None and isinstance(receiver, socket.socket) and receiver.fileno() == vault.control_fd


class _quiet:
    def __init__(self, vault: Any) -> None:
        self._local = vault.local

    def __enter__(self) -> None:
        self._local.busy = True

    def __exit__(self, *exc: Any) -> None:
        self._local.busy = False


def _resolve(dotted: str) -> tuple[Any, str, Any] | None:
    """(owner, attribute, current value) of a dotted name among loaded modules, else None."""
    parts = dotted.split(".")
    if len(parts) == 1:
        parts = ["builtins", *parts]
    for split in range(len(parts) - 1, 0, -1):
        module = sys.modules.get(".".join(parts[:split]))
        if module is None:
            continue
        owner: Any = module
        try:
            for name in parts[split:-1]:
                owner = getattr(owner, name)
            return owner, parts[-1], inspect.getattr_static(owner, parts[-1])
        except AttributeError:
            return None
    return None


def _patch(owner: Any, name: str, replacement: Any, original: Any) -> bool:
    try:
        setattr(owner, name, replacement)
    except (TypeError, AttributeError):
        return False
    vault = state()
    vault.patches.append((owner, name, replacement, original))
    for namespace in vault.modules:
        _rebind(namespace, original, replacement)
    return True


def _rebind(namespace: dict[str, Any], original: Any, replacement: Any) -> None:
    """Bindings of a wrapped operation in a module (`from os import system`) get the wrapper."""
    if original is None:
        return
    for key, value in list(namespace.items()):
        if value is original:
            namespace[key] = replacement


def rebind(namespace: dict[str, Any]) -> None:
    """A module loaded after arming: its bindings of wrapped operations get the wrappers."""
    for _, _, replacement, original in state().patches:
        _rebind(namespace, original, replacement)


def install(operations: tuple[Operation, ...]) -> None:
    """Arm the sinks: event table, wrappers, pathlib propagation, and (once) the audit hook."""
    vault = state()
    events: dict[str, list[Any]] = {}
    for operation in operations:
        audited = AUDITED.get(operation.op)
        if audited is not None:
            events.setdefault(audited[0], []).append((operation, audited[1]))
        elif not operation.op.startswith(_SQLITE_CLASSES):
            vault.pending.append(operation)
    vault.events = events
    sqlite_ops = [operation for operation in operations if operation.op.startswith(_SQLITE_CLASSES)]
    if sqlite_ops:
        _install_sqlite(sqlite_ops)
    wrap_pending()
    _install_pathlib()
    if not vault.hook_installed:
        sys.addaudithook(_audit)
        vault.hook_installed = True


def wrap_pending() -> None:
    """Wrap the operations whose module is loaded now (again after each project module loads)."""
    vault = state()
    waiting = []
    for operation in vault.pending:
        resolved = _resolve(operation.op)
        if resolved is None:
            waiting.append(operation)
            continue
        owner, name, current = resolved
        method = isinstance(owner, type) or not isinstance(owner, type(sys))
        if method and not isinstance(owner, type):
            owner = type(owner)  # e.g. os.environ.__setitem__: patch the class
            current = inspect.getattr_static(owner, name)
        if not callable(current) or isinstance(current, (type, staticmethod, classmethod)):
            continue  # a class cannot be replaced by a function (isinstance, subclasses): audit only
        _patch(owner, name, guarded(operation, current, method), current)
    vault.pending = waiting


def protected(function: Callable[..., Any] | None = None, *, arg: str | None = None,
              index: int | None = None) -> Any:
    """Declare a project function a protected operation. Its key input is the parameter `arg`
    (or the position `index`); without either, every argument is a key input."""

    def declare(target: Callable[..., Any]) -> Callable[..., Any]:
        name = getattr(target, "__qualname__", getattr(target, "__name__", "protected"))
        operation = Operation(op=f"{target.__module__}.{name}", category="protected", arg=arg, index=index,
                              also_check=(), when=None)
        signature = _signature(target)

        @functools.wraps(target)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            vault = state()
            if vault.armed or vault.heal_running is not None:
                if arg is None and index is None:
                    inputs = [(f"arg{n}", value) for n, value in enumerate(args)] + list(kwargs.items())
                else:
                    inputs = key_inputs(operation, signature, False, args, kwargs)
                decide(operation.op, inputs, True)
            return target(*args, **kwargs)

        return wrapper

    return declare(function) if function is not None else declare


def check_condition(index: int, value: Any, owner: Any, slot: tuple[str, Any]) -> None:
    """A declared check condition was read in a branch test: violation if the value or the
    location it was read from carries a heal label (a bool/None written there included).
    `slot` is ("name", name) with no owner, or ("attr", name) / ("item", key) of `owner`."""
    vault = state()
    if not vault.armed or vault.mode == "off" or getattr(vault.local, "internal", 0):
        return
    label = taint.find_label(value, 1)
    if label is None and owner is not None:
        label = taint.location_label(owner, slot)
        if label is None and slot[0] == "attr" and isinstance(owner, type(sys)):
            label = taint.name_label(vars(owner), slot[1])
    if label is None and owner is None:
        frame: Any = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename.startswith(taint.HEALRT_DIR):
            frame = frame.f_back
        if frame is not None:
            label = taint.name_label(frame.f_code, slot[1]) or taint.name_label(frame.f_globals, slot[1])
    if label is None:
        return
    reads = vault.policy.checks[index].reads
    vault.local.busy = True
    try:
        violation(f"check:{reads}", "check", reads, value, label, [])
    finally:
        vault.local.busy = False


# ---------------------------------------------------------------- sqlite3 and pathlib

def _install_sqlite(operations: list[Operation]) -> None:
    sqlite3 = sys.modules.get("sqlite3")
    if sqlite3 is None:
        return
    by_class: dict[str, dict[str, Operation]] = {"Connection": {}, "Cursor": {}}
    for operation in operations:
        _, klass, method = operation.op.rsplit(".", 2)
        by_class.setdefault(klass, {})[method] = operation
    connect = sqlite3.connect
    made: dict[type, type] = {}

    def subclass(base: type, kind: str) -> type:
        if base not in made:
            namespace: dict[str, Any] = {
                method: guarded(operation, getattr(base, method), True)
                for method, operation in by_class[kind].items() if hasattr(base, method)}
            if kind == "Connection":
                def cursor(self: Any, factory: type = sqlite3.Cursor) -> Any:
                    return base.cursor(self, subclass(factory, "Cursor"))
                namespace["cursor"] = cursor
            made[base] = type(base.__name__, (base,), namespace)
        return made[base]

    factory_position = 5  # sqlite3.connect(database, timeout, detect_types, isolation_level, check_same_thread, factory)

    @functools.wraps(connect)
    def guarded_connect(*args: Any, **kwargs: Any) -> Any:
        if len(args) > factory_position:
            args = (*args[:factory_position], subclass(args[factory_position], "Connection"), *args[factory_position + 1:])
        else:
            kwargs["factory"] = subclass(kwargs.get("factory", sqlite3.Connection), "Connection")
        return connect(*args, **kwargs)

    _patch(sqlite3, "connect", guarded_connect, connect)


def _path_function(original: Callable[..., Any], name: str) -> Callable[..., Any]:
    """A pathlib method or property getter whose result carries the label of the path or args."""

    @functools.wraps(original)
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = original(self, *args, **kwargs)
        if not state().any_label:
            return result
        label = taint.merge(taint.find_label(self, 1), taint.args_label(args, kwargs))
        return result if label is None else taint.carry(result, label, name)

    return method


def _install_pathlib() -> None:
    installed = {id(patch[2]) for patch in state().patches}
    for klass in (pathlib.PurePath, pathlib.Path):
        for name in (*_PATH_METHODS, *_PATH_PROPERTIES):
            current = inspect.getattr_static(klass, name, None)
            if current is None or id(current) in installed:
                continue
            if isinstance(current, property) and current.fget is not None:
                replacement: Any = property(_path_function(current.fget, name), current.fset, current.fdel)
            elif isinstance(current, staticmethod):
                replacement = staticmethod(_path_function(current.__func__, "Path()"))
            elif inspect.isfunction(current):
                replacement = _path_function(current, name)
            else:
                continue
            if _patch(klass, name, replacement, None):
                installed.add(id(replacement))


def verify() -> list[str]:
    """Wrappers a heal replaced (e.g. `pathlib.Path.unlink = ...`): put back, and named."""
    tampered = []
    for owner, name, replacement, _ in state().patches:
        if vars(owner).get(name) is not replacement:
            setattr(owner, name, replacement)
            tampered.append(f"{getattr(owner, '__name__', type(owner).__name__)}.{name}")
    return tampered
