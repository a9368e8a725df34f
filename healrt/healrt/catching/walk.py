"""The walk outward from the crashing frame, and the policy for constructs it cannot decide (see
the package's docstring)."""

from __future__ import annotations

import builtins
import dataclasses
import functools
import os
import types

from ..sites import Site, SiteTable
from .guards import CAUGHT, NOT_CAUGHT, UNDECIDED, guarded_statically
from .memo import VerdictMemo, start_recording, stop_recording, uncacheable
from .tables import caught_by_exception_table

_NEVER_NAMES = ("KeyboardInterrupt", "SystemExit", "GeneratorExit", "StopIteration",
                "StopAsyncIteration", "RecursionError", "MemoryError", "AssertionError")
_NEVER_TYPES: tuple[type[BaseException], ...] = tuple(getattr(builtins, n) for n in _NEVER_NAMES)
# Control-flow exceptions of test frameworks (pytest's OutcomeException, unittest.SkipTest, ...).
_NEVER_MODULE_PREFIXES = ("_pytest.", "pytest.", "unittest.")


@dataclasses.dataclass
class Verdict:
    caught: bool
    decision: str  # caught | not_caught | deferred | assumed_caught | intercepted
    undecided: list[tuple[str, str, int]]  # (reason, file, line) of each undecided construct


def never_intercepted(exc: BaseException) -> bool:
    return isinstance(exc, _NEVER_TYPES) or _framework_exception(type(exc))


@functools.lru_cache(maxsize=1024)
def _framework_exception(exc_type: type) -> bool:
    """Asked for every exception in project code; types hash by identity, so caching is cheap."""
    return any(cls.__module__.startswith(_NEVER_MODULE_PREFIXES) for cls in exc_type.__mro__)


def would_be_caught(
    exc: BaseException, frame: types.FrameType, site: Site, table: SiteTable, target_file: str,
    memo: VerdictMemo | None = None,
) -> Verdict:
    if memo is not None:
        known = memo.lookup(exc, frame, site)
        if known is not None:
            return known
    recording = start_recording()
    try:
        verdict, walked = _walk(exc, frame, site, table, target_file)
        if memo is not None and recording.cacheable and walked:
            memo.store(exc, site, walked, recording.deps, verdict)
    finally:
        stop_recording()
    return verdict


def _walk(exc: BaseException, frame: types.FrameType, site: Site, table: SiteTable,
          target_file: str) -> tuple[Verdict, list[types.FrameType]]:
    """The verdict, and the frames it was decided on (empty when it also depends on frames
    further out: the end of the stack, or a test-file frame beyond a helper)."""
    undecided: list[tuple[str, str, int]] = []
    walked: list[types.FrameType] = []
    current: types.FrameType | None = frame
    while current is not None:
        walked.append(current)
        code = current.f_code
        is_test_frame = same_file(code.co_filename, target_file)
        frame_site = None
        if table.is_instrumented(code.co_filename):
            frame_site = site if current is frame else table.site_at(current)
        if undecided and frame_site is not None and current is not frame:
            return Verdict(True, "deferred", undecided), walked
        if frame_site is not None:
            state, reasons = guarded_statically(exc, current, frame_site)
        else:
            state, reasons = caught_by_exception_table(exc, current)
        undecided.extend((reason, code.co_filename, current.f_lineno or 0) for reason in reasons)
        if state == CAUGHT:
            return Verdict(True, CAUGHT, undecided), walked
        if is_test_frame:
            if state == UNDECIDED:
                return Verdict(True, "assumed_caught", undecided), walked
            uncacheable()  # whether the walk goes on depends on frames not walked yet
            if not _test_file_further_out(current.f_back, target_file):
                break
        current = current.f_back
    return Verdict(False, "intercepted" if undecided else NOT_CAUGHT, undecided), []


def _test_file_further_out(frame: types.FrameType | None, target_file: str) -> bool:
    """Whether a frame further out runs test-file code: the frame left was a helper of the test
    (`self.newconfig()`), and the test that called it may still catch the exception."""
    while frame is not None:
        if same_file(frame.f_code.co_filename, target_file):
            return True
        frame = frame.f_back
    return False


@functools.lru_cache(maxsize=4096)
def _realpath(filename: str) -> str:
    return os.path.realpath(filename)


def same_file(filename: str, target_file: str) -> bool:
    return _realpath(filename) == target_file
