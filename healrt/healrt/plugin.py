"""pytest plugins: swap in the project modules before the first conftest loads, and record the target test's fate."""

from __future__ import annotations

import dataclasses
import os
from types import TracebackType
from typing import Any, Callable, Generator

import pytest

DETAIL_CAP = 2_000


@dataclasses.dataclass
class TargetRecord:
    ran: bool = False
    proceeded: bool = True
    passed: bool = True
    details: list[str] = dataclasses.field(default_factory=list)
    # Where the first exception of a target test's call phase was raised (crash_location()).
    crash: dict[str, Any] | None = None


ReportHandler = Callable[[pytest.Item, pytest.CallInfo[None], pytest.TestReport], None]


class SwapFirstPlugin:
    """What every harness of a subject's tests needs from pytest (healrt's run of a target test,
    and the dataset tools' suite runs): the project swapped in first, then each phase's report."""

    def __init__(self, swap_in: Callable[[], None], on_report: ReportHandler) -> None:
        self._swap_in = swap_in
        self._on_report = on_report

    # The project is swapped in before pytest loads the first conftest, not at collection: a
    # conftest inside a project root (numpy/conftest.py, pandas/conftest.py) imports the project;
    # a package with compiled extensions cannot be imported a second time once swapped ("cannot
    # load module more than once per process"), and with --import-mode=append the conftest would
    # otherwise get the subject's copy (pytest's ImportPathMismatchError).
    @pytest.hookimpl(tryfirst=True)
    def pytest_load_initial_conftests(self, early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
        self._swap_in()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
        # A wrapper: by the time the inner hooks return, pytest's unittest support has moved a
        # TestCase's failure into call.excinfo. Old-style (hookwrapper) so that Debian's pytest 7
        # (pluggy 1.0, no `wrapper=True`) runs it too.
        outcome = yield
        self._on_report(item, call, outcome.get_result())


class OutcomePlugin(SwapFirstPlugin):
    """Records the fate of the one target test (a file, and a name unless the whole file is the target)."""

    def __init__(self, target_file: str, target_name: str, source_dir: str,
                 before_conftests: Callable[[], None]) -> None:
        super().__init__(before_conftests, self._report)
        self._target_file = target_file
        self._target_name = target_name
        self._source_dir = source_dir
        self.record = TargetRecord()

    def _report(self, item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport) -> None:
        if self._is_target(item):
            self._record(call, report)

    def _is_target(self, item: pytest.Item) -> bool:
        if os.path.realpath(str(item.path)) != self._target_file:
            return False
        return not self._target_name or item.nodeid.partition("::")[2] == self._target_name

    def _record(self, call: pytest.CallInfo[None], report: pytest.TestReport) -> None:
        record = self.record
        if call.when == "call":
            record.ran = True
            if call.excinfo is not None and not call.excinfo.errisinstance(AssertionError):
                record.proceeded = False
        if report.skipped:
            if call.when == "call":
                # It started and then skipped itself, or xfailed: it did not pass. (A test skipped
                # before it started, by a marker, is neutral; a target that never ran is caught by `ran`.)
                record.passed = False
                why = "xfailed" if hasattr(report, "wasxfail") else "skipped"
                reason = call.excinfo.value if call.excinfo is not None else ""
                record.details.append(f"{why} in its call phase: {reason}"[:DETAIL_CAP])
            return
        if call.when == "call" and call.excinfo is not None and record.crash is None:
            record.crash = crash_location(call.excinfo.value, call.excinfo.tb, self._source_dir)
        if not report.passed:
            record.passed = False
            if call.excinfo is not None:
                record.details.append(f"{call.excinfo.typename}: {call.excinfo.value}"[:DETAIL_CAP])

    def outcome_fields(self) -> dict[str, Any]:
        record = self.record
        return {
            "ran": record.ran,
            "proceeded": record.ran and record.proceeded,
            "passed": record.ran and record.passed,
            "detail": "; ".join(record.details)[:DETAIL_CAP] if record.details else ("" if record.ran else "target test did not run"),
            "crash": record.crash,
        }


def crash_location(error: BaseException, tb: TracebackType | None, source_dir: str) -> dict[str, Any]:
    """The exception's type (`__qualname__`, module-qualified unless a builtin) and the innermost
    traceback frame whose file lies inside source_dir (file relative to it); file, function and
    line are None when no frame does. The dataset's expected_crash is compared with this."""
    cls = type(error)
    name = cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
    crash: dict[str, Any] = {"type": name, "file": None, "function": None, "line": None}
    root = os.path.join(os.path.realpath(source_dir), "")
    while tb is not None:
        path = os.path.realpath(tb.tb_frame.f_code.co_filename)
        if path.startswith(root):
            crash.update(file=os.path.relpath(path, root), function=tb.tb_frame.f_code.co_name, line=tb.tb_lineno)
        tb = tb.tb_next
    return crash
