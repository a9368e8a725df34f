"""Remembering verdicts: a walk records what it read besides its frames' code and positions, and a
verdict that depends only on those (and on global or module-attribute lookups, checked again on
every reuse) is kept per stack signature.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

from ..sites import Site

if TYPE_CHECKING:
    from .walk import Verdict

ABSENT = object()


class _Recording:
    """What the walk in progress read besides its frames' code and positions.

    `deps` are (namespace, name, value) of the global and module-attribute lookups that resolved
    except clause types; a verdict still holds while each lookup finds the same object. Anything
    else the walk reads (locals, with-block managers, the exception's message, attributes of
    classes) makes the verdict uncacheable.
    """

    __slots__ = ("cacheable", "deps")

    def __init__(self) -> None:
        self.cacheable = True
        self.deps: list[tuple[dict[str, Any], str, Any]] = []


_recording: _Recording | None = None


def start_recording() -> _Recording:
    """The record of the walk about to start (a module global: the helpers that resolve names
    report to it without being passed it)."""
    global _recording
    _recording = _Recording()
    return _recording


def stop_recording() -> None:
    global _recording
    _recording = None


def uncacheable() -> None:
    if _recording is not None:
        _recording.cacheable = False


def depends_on(namespace: dict[str, Any], name: str, value: Any) -> None:
    if _recording is not None:
        _recording.deps.append((namespace, name, value))


class _Node:
    __slots__ = ("code", "children", "verdict", "deps")

    def __init__(self, code: types.CodeType) -> None:
        self.code = code  # held: keeps id(code) from being reused while the node exists
        self.children: dict[tuple[int, int], _Node] = {}
        self.verdict: Verdict | None = None
        self.deps: tuple[tuple[dict[str, Any], str, Any], ...] = ()


class VerdictMemo:
    """Verdicts by stack signature: the exception's type, the crashing site, and (code, f_lasti)
    of each frame walked outward until the decision. Programs raise and catch the same
    exceptions at the same places thousands of times (configparser's tests: ~5,000 caught
    exceptions, ~700 distinct signatures); the walk costs tens of microseconds, a lookup a few.
    """

    MAX_NODES = 20000

    def __init__(self) -> None:
        self._roots: dict[tuple[type, int], _Node] = {}
        self._nodes = 0

    def lookup(self, exc: BaseException, frame: types.FrameType, site: Site) -> Verdict | None:
        node = self._roots.get((type(exc), site.id))
        if node is None or node.code is not frame.f_code:
            return None
        current = frame.f_back
        while node.verdict is None:
            if current is None:
                return None
            node = node.children.get((id(current.f_code), current.f_lasti))  # type: ignore[assignment]
            if node is None or node.code is not current.f_code:
                return None
            current = current.f_back
        for namespace, name, value in node.deps:
            if namespace.get(name, ABSENT) is not value:
                return None
        return node.verdict

    def store(self, exc: BaseException, site: Site, walked: list[types.FrameType],
              deps: list[tuple[dict[str, Any], str, Any]], verdict: Verdict) -> None:
        if self._nodes + len(walked) > self.MAX_NODES:
            return
        key = (type(exc), site.id)
        node = self._roots.get(key)
        if node is None or node.code is not walked[0].f_code:
            node = self._roots[key] = _Node(walked[0].f_code)
            self._nodes += 1
        for current in walked[1:]:
            if node.verdict is not None:
                return  # a shorter walk decided already (its deps changed since): keep it simple
            child_key = (id(current.f_code), current.f_lasti)
            child = node.children.get(child_key)
            if child is None or child.code is not current.f_code:
                child = node.children[child_key] = _Node(current.f_code)
                self._nodes += 1
            node = child
        if node.children:
            return
        node.verdict = verdict
        node.deps = tuple(deps)
