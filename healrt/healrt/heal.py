"""Probe and heal execution against the paused crashing frame.

Probes run on a namespace built from the frame (by default in a forked copy of the process).
Heals are re-checked, dry-run in a fork (so a heal that raises leaves the live process untouched),
then run on shallow copies of the frame's namespaces; changed bindings are written back.
HealGuard (guard.py) runs with both: heal code that reaches a protected operation is a violation
(the dry run refuses the heal in enforce mode), and an applied heal's sources get its label.
"""

from __future__ import annotations

import ast
import contextlib
import ctypes
import dataclasses
import inspect
import io
import sys
import traceback
import types
from typing import Any, Callable

from . import delta, guard, healvalues
from .context import capped_repr, hidden_name
from .forkrun import run_in_fork
from .healcheck import HealRejected, check_heal
from .rewrite import RETURN_SLOT
from .sinks import HealGuardViolation
from .sites import Site

PROBE_TIMEOUT = 20.0
HEAL_TIMEOUT = 30.0
OUTPUT_CAP = 16_000
VALUE_CAP = 8_000
RESUME_MODES = ("skip", "retry", "return")
STATIC_VERDICTS = ("clean", "tainted", "unknown", "unavailable")


@dataclasses.dataclass(frozen=True)
class StaticAnswer:
    """The controller's static stage on a dry-run heal (heal_commit / heal_abort)."""
    abort: str | None = None  # why the heal is not applied; None: commit
    verdict: str | None = None  # heal_commit's static_verdict (STATIC_VERDICTS), None when not given
    # The outermost project frame the analysis covered (the crashing frame's outermost analysed
    # caller): a CLEAN verdict speaks only for code running while it is on the stack.
    covered: types.FrameType | None = None


# The static stage's say on a dry-run heal: (Δk, truncated) -> its answer.
StaticDecision = Callable[[list[dict[str, Any]], bool], StaticAnswer]

# Before 3.13 f_locals is a snapshot that must be pushed back into the fast locals explicitly.
_LOCALS_TO_FAST = None if sys.version_info >= (3, 13) else ctypes.pythonapi.PyFrame_LocalsToFast
if _LOCALS_TO_FAST is not None:
    _LOCALS_TO_FAST.argtypes = [ctypes.py_object, ctypes.c_int]
    _LOCALS_TO_FAST.restype = None


def frame_namespace(frame: types.FrameType) -> dict[str, Any]:
    """A fresh dict: the frame's globals overlaid with its locals, runtime names stripped.

    One dict (not separate globals/locals) so comprehensions in the code see the frame's locals.
    """
    namespace = {k: v for k, v in frame.f_globals.items() if not hidden_name(k)}
    namespace.update((k, v) for k, v in frame.f_locals.items() if not hidden_name(k))
    return namespace


# ---------------------------------------------------------------- probes

INPLACE_REFUSED = ("inplace probes run unchecked code in the live process, so they are allowed only with "
                   "HealGuard off (guard mode 'off'); run the probe in a fork (inplace false)")


def run_probe(code: str, frame: types.FrameType, inplace: bool, timeout: float = PROBE_TIMEOUT) -> dict[str, Any]:
    if inplace:
        if guard.mode() != "off":
            return {"ok": False, "output": "", "value": None, "error": INPLACE_REFUSED}
        return _probe(code, frame)
    result = run_in_fork(lambda: _probe(code, frame), timeout)
    return {"ok": bool(result.get("ok")), "output": result.get("output", ""),
            "value": result.get("value"), "error": result.get("error")}


def _probe(code: str, frame: types.FrameType) -> dict[str, Any]:
    output = io.StringIO()
    value: str | None = None
    try:
        tree = ast.parse(code, "<probe>")
        trailing = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        namespace = frame_namespace(frame)
        with contextlib.redirect_stdout(output):
            exec(compile(tree, "<probe>", "exec"), namespace)
            if trailing is not None:
                result = eval(compile(ast.Expression(trailing.value), "<probe>", "eval"), namespace)
                value = capped_repr(result, VALUE_CAP)[0]
    except BaseException:
        return {"ok": False, "output": output.getvalue()[:OUTPUT_CAP], "value": None,
                "error": traceback.format_exc()}
    return {"ok": True, "output": output.getvalue()[:OUTPUT_CAP], "value": value, "error": None}


# ---------------------------------------------------------------- heals

@dataclasses.dataclass
class HealResult:
    ok: bool
    reason: str | None = None
    message: str | None = None
    traceback: str | None = None
    changed: list[str] = dataclasses.field(default_factory=list)
    dropped: list[str] = dataclasses.field(default_factory=list)
    return_value: Any = None
    delta: list[dict[str, Any]] = dataclasses.field(default_factory=list)  # Δk of the dry run
    delta_truncated: bool = False

    @classmethod
    def failed(cls, reason: str, message: str, tb: str | None = None) -> HealResult:
        return cls(ok=False, reason=reason, message=message, traceback=tb)


def _binds_return_slot(tree: ast.Module) -> bool:
    return any(isinstance(n, ast.Name) and n.id == RETURN_SLOT and isinstance(n.ctx, ast.Store)
               for n in ast.walk(tree))


def run_heal(code: str, frame: types.FrameType, site: Site, resume: str, timeout: float = HEAL_TIMEOUT,
             heal_point: int = 0, decide: StaticDecision | None = None) -> HealResult:
    """`decide` (the static stage) sees Δk of a successful dry run; its answer aborts the heal or
    commits it with the static verdict (a CLEAN one waives the bool/None rule, guard.py)."""
    try:
        tree = ast.parse(code, "<heal>")
    except SyntaxError as error:
        return HealResult.failed("syntax", str(error), traceback.format_exc())
    try:
        check_heal(tree)
        healvalues.check_names(tree, frame_namespace(frame))
    except HealRejected as error:
        return HealResult.failed("forbidden", str(error))
    if resume not in RESUME_MODES:
        return HealResult.failed("bad_resume", f"unknown resume mode {resume!r}")
    if resume == "return" and not site.can_return:
        return HealResult.failed("bad_resume", "the crash site is not inside a function that can return a value")
    if resume == "return" and not _binds_return_slot(tree):
        return HealResult.failed("no_return_value", f"resume=return needs the heal to assign {RETURN_SLOT}")
    compiled = compile(healvalues.instrument(tree), "<heal>", "exec")

    with guard.internal():
        dry = run_in_fork(lambda: _dry_run(compiled, tree, frame, heal_point, site), timeout)
    if not dry.get("ok"):
        reason = "guard" if dry.get("guard") else "forbidden" if dry.get("forbidden") \
            else "timeout" if dry.get("timed_out") else "raised"
        error_text = str(dry.get("error") or "")
        if dry.get("guard"):
            guard.adopt(dry["guard"])
        return HealResult.failed(reason, error_text.strip().splitlines()[-1] if error_text.strip() else reason, error_text)
    answer = StaticAnswer()
    if decide is not None:
        answer = decide(list(dry.get("delta") or []), bool(dry.get("delta_truncated")))
        if answer.abort is not None:
            return HealResult.failed("aborted", answer.abort)

    guard.arm()
    namespace = frame_namespace(frame)
    before = dict(namespace)
    namespace.update(healvalues.hooks())
    sources_before = guard.snapshot(namespace)
    try:
        with guard.heal_running(heal_point, site.file, site.line):
            exec(compiled, namespace)
    except BaseException as error:
        # The dry run succeeded, so this is non-determinism; object mutations so far are live.
        reason = "guard" if isinstance(error, HealGuardViolation) else "raised_live"
        return HealResult.failed(reason, "the heal raised in the live process", traceback.format_exc())
    missing = object()
    updates = {k: v for k, v in namespace.items()
               if k != "__builtins__" and not hidden_name(k) and before.get(k, missing) is not v}
    guard.label_heal(heal_point, tree, sources_before, namespace, updates, frame, site.file, site.line,
                     answer.verdict, answer.covered)
    changed, dropped = write_back(frame, updates)
    return HealResult(ok=True, changed=changed, dropped=dropped,
                      return_value=updates.get(RETURN_SLOT, namespace.get(RETURN_SLOT)),
                      delta=list(dry.get("delta") or []), delta_truncated=bool(dry.get("delta_truncated")))


def _dry_run(compiled: types.CodeType, tree: ast.Module, frame: types.FrameType, heal_point: int,
             site: Site) -> dict[str, Any]:
    """Runs the heal in the fork, guarded; on success also computes its Δk there."""
    guard.in_dry_run()
    namespace = frame_namespace(frame)
    before = delta.snapshot(namespace)
    namespace.update(healvalues.hooks())
    try:
        with guard.heal_running(heal_point, site.file, site.line):
            exec(compiled, namespace)
    except HealGuardViolation as violation:
        return {"ok": False, "timed_out": False, "error": traceback.format_exc(), "guard": violation.decision}
    except healvalues.HealValueRefused as refused:
        return {"ok": False, "timed_out": False, "forbidden": True, "error": str(refused)}
    except BaseException:
        return {"ok": False, "timed_out": False, "error": traceback.format_exc()}
    try:
        entries, truncated = delta.compute(tree, before, namespace)
    except Exception:  # Δk is a report: failing to compute it must not block a heal that ran
        entries, truncated = [], True
    return {"ok": True, "delta": entries, "delta_truncated": truncated}


def write_back(frame: types.FrameType, updates: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Rebind names in the live frame; returns (written, dropped: brand-new names of a function)."""
    code = frame.f_code
    if not code.co_flags & inspect.CO_OPTIMIZED:
        # Module and class bodies: f_locals is the real namespace (the globals for a module).
        namespace = frame.f_locals
        for name, value in updates.items():
            namespace[name] = value
        return list(updates), []
    local_names = set(code.co_varnames) | set(code.co_cellvars) | set(code.co_freevars)
    to_locals = {k: v for k, v in updates.items() if k in local_names}
    to_globals = {k: v for k, v in updates.items() if k not in local_names and k in frame.f_globals}
    dropped = [k for k in updates if k not in to_locals and k not in to_globals]
    frame.f_globals.update(to_globals)
    if to_locals:
        # Read f_locals exactly once: on 3.11/3.12 each read re-snapshots the fast locals.
        view = frame.f_locals
        for name, value in to_locals.items():
            view[name] = value
        if _LOCALS_TO_FAST is not None:
            _LOCALS_TO_FAST(frame, 0)
    return [*to_locals, *to_globals], dropped
