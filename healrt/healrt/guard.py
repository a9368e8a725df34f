"""HealGuard's dynamic stage as the runtime drives it: mode, arming, heal sources, records.

Modes: `enforce` (a violation raises HealGuardViolation before the operation's effect), `observe`
(violations are recorded and the operation runs), `off` (nothing is rewritten or installed).

Arming happens with the first applied heal, and every applied heal labels its sources: the audit
hook is installed (it can never be removed, hence not before), the policy's wrappers patched, and
the formatting rewrite of every instrumented module switched on. A heal's dry run (in its fork)
arms the fork only, so heal code is checked from the first heal on: while heal code runs, every
protected operation it reaches is a violation (every value it computes carries its label).

The conservative rule for bool and None (they cannot carry a wrapper): a heal that writes one
records `guard_conservative` and its location. A protected operation whose key input carries no
label is then a violation if a project frame on the stack may read that location (the owner object
is one of its locals or free variables, an attribute of one, or its module, and its code names the
attribute or calls getattr; any key for an item; a global's name; for a local name, the healed
function itself is on the stack). A declared check condition
that reads the location is a violation outright (its location label).

The rule stands in for the explicit flows of bool/None values the labels cannot follow. The static
stage follows them: a heal committed with the static verdict `clean` has a proof that none of its
sources reaches a protected operation's key input along the code the analysis covered, i.e. while
the outermost analysed frame (the crashing frame's outermost project caller, astexport.py) is
still on the stack. For such a heal the rule is waived there (`guard_conservative` says so, and a
call it would have flagged is recorded as `guard_conservative_waived`); outside it (after that
frame returned, in another thread, in a generator resumed from elsewhere) the rule applies as for
any other verdict or a heal without the static stage.

All state is in vault.py; these functions are healrt's only way to it.
"""

from __future__ import annotations

import contextlib
import os
import types
from typing import Any, Callable, Iterator

from . import delta, sinks, sources, taint, taintops
from .fmtrewrite import FLAG, OPS, FormatRewriter
from .policy import default_policy_data, parse_policy
from .vault import state

MODES = ("enforce", "observe", "off")


def configure(mode: str, policy: dict[str, Any] | None, emit: Callable[..., None] | None,
              is_project: Callable[[str], bool], control_fd: int | None = None) -> None:
    if mode not in MODES:
        raise ValueError(f"guard mode must be one of {', '.join(MODES)}, not {mode!r}")
    vault = state()
    vault.mode = mode
    vault.policy = parse_policy(policy if policy is not None else default_policy_data())
    vault.emit = emit
    vault.is_project = is_project
    vault.control_fd = control_fd


def mode() -> str:
    return state().mode


def rewriter() -> FormatRewriter | None:
    """The formatting rewrite for project modules (None when the guard is off)."""
    vault = state()
    return None if vault.mode == "off" else FormatRewriter(vault.policy.checks)


def register_module(namespace: dict[str, Any]) -> None:
    """An instrumented module is about to run: its rewrite switch, and the operations it calls."""
    vault = state()
    namespace[OPS] = taintops
    namespace[FLAG] = vault.armed
    vault.modules.append(namespace)


def module_loaded(namespace: dict[str, Any]) -> None:
    """An instrumented module ran: after arming, wrap what it defined or bound (policy ops)."""
    vault = state()
    if not vault.armed:
        return
    sinks.wrap_pending()
    sinks.rebind(namespace)


def arm() -> None:
    vault = state()
    if vault.mode == "off" or vault.armed:
        return
    vault.armed = True
    for note in vault.policy.notes:
        sinks.report({"kind": "guard_policy_note", "message": note})
    sinks.install(vault.policy.operations)
    for namespace in vault.modules:
        namespace[FLAG] = True


@contextlib.contextmanager
def internal() -> Iterator[None]:
    """healrt's own work (forks, control messages): no guard decisions."""
    local = state().local
    local.internal = getattr(local, "internal", 0) + 1
    try:
        yield
    finally:
        local.internal -= 1


@contextlib.contextmanager
def heal_running(heal_point: int, file: str, line: int) -> Iterator[None]:
    """Heal code runs: every protected operation it reaches is a violation, and the control
    socket's descriptor cannot be written, duplicated or closed (forged or cut-off records)."""
    vault = state()
    local = vault.local
    saved = getattr(local, "internal", 0), vault.heal_running
    local.internal = 0
    vault.heal_running = {"heal_point": heal_point, "location": "heal code", "file": file, "line": line}
    restore = _guard_descriptor(vault.control_fd) if vault.mode != "off" else {}
    try:
        yield
    finally:
        for name, function in restore.items():
            setattr(os, name, function)
        local.internal, vault.heal_running = saved


# os functions that act on a descriptor given as their first argument(s) (dup2, splice,
# copy_file_range, sendfile: the first two).
_DESCRIPTOR_FUNCTIONS = ("write", "writev", "pwrite", "pwritev", "close", "dup", "ftruncate", "fchmod", "fchown",
                         "set_blocking", "set_inheritable", "lseek", "fdopen", "fsync")
_TWO_DESCRIPTOR_FUNCTIONS = ("dup2", "sendfile", "splice", "copy_file_range")


def _descriptor_number(value: Any) -> Any:
    """The number os would use for a descriptor argument: an int's own value, or what fileno() gives."""
    if isinstance(value, int):
        return int.__index__(value)
    fileno = getattr(value, "fileno", None)
    return _descriptor_number(fileno()) if callable(fileno) and not isinstance(value, type) else value


def _guard_descriptor(fd: int | None) -> dict[str, Any]:
    """Swap in refusing versions of the os descriptor functions (and closerange); the originals."""
    if fd is None:
        return {}
    originals: dict[str, Any] = {}

    def refusing(name: str, function: Callable[..., Any], positions: tuple[int, ...]) -> Callable[..., Any]:
        def checked(*args: Any, **kwargs: Any) -> Any:
            # The call gets the descriptor number that was checked: an int subclass's __eq__, or a
            # fileno() that answers differently the second time, cannot slip the control fd past.
            numbered = list(args)
            for position in positions:
                if position < len(numbered):
                    numbered[position] = _descriptor_number(numbered[position])
                    if numbered[position] == fd:
                        raise PermissionError(f"HealGuard: heal code may not use healrt's control descriptor ({name})")
            return function(*numbered, **kwargs)
        return checked

    for name in (*_DESCRIPTOR_FUNCTIONS, *_TWO_DESCRIPTOR_FUNCTIONS):
        function = getattr(os, name, None)
        if function is not None:
            originals[name] = function
            setattr(os, name, refusing(name, function, (0, 1) if name in _TWO_DESCRIPTOR_FUNCTIONS else (0,)))
    closerange = os.closerange

    def checked_closerange(low: int, high: int) -> None:
        if low <= fd < high:
            raise PermissionError("HealGuard: heal code may not use healrt's control descriptor (closerange)")
        closerange(low, high)

    originals["closerange"] = closerange
    os.closerange = checked_closerange
    return originals


def in_dry_run() -> None:
    """In a heal's dry-run fork: armed here (not in the live process), records kept for the parent."""
    vault = state()
    vault.emit = None
    vault.records = []
    arm()


def snapshot(namespace: dict[str, Any]) -> delta.Snapshot | None:
    """The live objects before a heal runs (None when the guard is off)."""
    return None if state().mode == "off" else delta.snapshot(namespace)


def label_heal(heal_point: int, tree: Any, before: delta.Snapshot | None, namespace: dict[str, Any],
               updates: dict[str, Any], frame: types.FrameType, file: str, line: int,
               static_verdict: str | None = None, covered: types.FrameType | None = None) -> None:
    """An applied heal: label its sources (updates get wrapped values), re-check the wrappers.
    `static_verdict` `clean` with the outermost frame the analysis `covered` waives the bool/None
    rule for this heal's sources while that frame is on the stack."""
    vault = state()
    if before is None:
        return
    vault.heal_points.append({"heal_point": heal_point, "location": "healed state", "file": file, "line": line})
    waiver = sources.Waiver(static_verdict, covered if static_verdict == "clean" else None)
    for record in sources.label_sources(heal_point, tree, before, namespace, updates, frame, file, line, waiver):
        sinks.report(record)
    for where in sinks.verify():
        sinks.report({"kind": "guard_tamper", "heal_point": heal_point, "location": where,
                      "message": "a heal replaced a guard wrapper; it was put back"})


def adopt(record: dict[str, Any]) -> None:
    """A violation found in a heal's dry-run fork (the heal is refused): count and send it here."""
    state().violations += 1
    sinks.report(record)


def outcome_fields() -> dict[str, Any]:
    vault = state()
    events = list(vault.records)
    if vault.object_cap_hit:
        events.append({"kind": "guard_capacity", "message": f"more than {taint.OBJECT_CAP} objects were labelled; "
                                                            "later ones were not (their flows are missed)"})
    return {"guard_mode": vault.mode, "guard_violations": vault.violations, "guard_events": events}
