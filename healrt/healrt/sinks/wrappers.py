"""Wrappers: every operation of the policy the audit hook does not decide, patched on its module or
class (and every binding of the original in instrumented modules); sqlite3's classes through the
connect factory; pathlib's methods, which carry a path's label to the paths derived from it;
`@healrt.protected` for the project's own functions; and arming it all (`install`).
"""

from __future__ import annotations

import functools
import inspect
import pathlib
import socket
import sys
from typing import Any, Callable

from .. import taint
from ..policy import Operation
from ..vault import state
from . import audit
from .decisions import decide

_SQLITE_CLASSES = ("sqlite3.Connection", "sqlite3.Cursor")
_PATH_METHODS = ("__new__", "__truediv__", "__rtruediv__", "joinpath", "with_name", "with_stem", "with_suffix",
                 "with_segments", "relative_to", "absolute", "resolve", "expanduser", "readlink", "__fspath__",
                 "as_posix")
_PATH_PROPERTIES = ("parent", "name", "stem", "suffix")


def signature_of(function: Any) -> inspect.Signature | None:
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


def applies(operation: Operation, signature: inspect.Signature | None, method: bool,
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
    signature = signature_of(original)

    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        vault = state()
        if (not vault.armed and vault.heal_running is None) or not applies(operation, signature, method, args, kwargs) \
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
        audited = audit.AUDITED.get(operation.op)
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
        sys.addaudithook(audit.hook)
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
        signature = signature_of(target)

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
