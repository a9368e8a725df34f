"""What a decision leaves behind: the violation raised in enforce mode (HealGuardViolation), the
guard's record of each decision (operation, key input, flow path, where the call was made), kept
in the outcome and sent as an event, both capped per kind.
"""

from __future__ import annotations

import sys
from typing import Any

from .. import taint
from ..vault import state

EVENT_CAP = 100  # events sent (and records kept) per kind; later ones are only counted
VALUE_REPR_CAP = 200


class HealGuardViolation(Exception):
    """A protected operation was reached with a key input derived from a heal (enforce mode).
    `decision` holds the guard's record: operation, key input, and the flow path."""

    def __init__(self, decision: dict[str, Any]) -> None:
        self.decision = decision
        key = decision.get("key_input") or {}
        detail = f" ({key['name']}={key['value']})" if key else ""
        super().__init__(f"HealGuard blocked {decision['op']}{detail}: rule {decision['rule']}, "
                         f"heal point(s) {decision['heal_points']}")


# Outcomes name an escaped violation by its module and class: the package that exports it.
HealGuardViolation.__module__ = "healrt.sinks"


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
