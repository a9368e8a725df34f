"""Deciding one call of a protected operation (the rules in the package's docstring), and a read
of a declared check condition in a branch test.
"""

from __future__ import annotations

import sys
from typing import Any

from .. import taint
from ..vault import state
from .records import violation, waived

_SLOW_FRAMES = 40  # frames walked by the conservative rule
WAIVED = "conservative_waived"  # a finding of a waived bool/None location (not a violation)


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
