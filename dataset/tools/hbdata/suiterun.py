"""Runs a selection of a subject's tests against a workspace overlay and records every failure.

The parent side (`run_suite`) starts `python -P -m hbdata.suiterun` under the subject's
interpreter; the child side (`main`) is a pytest plugin. As healrt does (a stdlib subject is also
the harness's library), the harness — pytest, this module, healrt's helpers — is
imported first from the pristine library; only then, before pytest loads the first conftest, are the project
modules dropped from `sys.modules` and the overlay put first on `sys.path`. `-P` and
`--import-mode=append` keep the subject root (cwd, pytest's rootdir insertion) from landing in
front of the overlay.

For each failing test the child records: node id, phase, exception type (qualified, and its
MRO so the funnel can classify it without importing it), message, where the innermost frame is
(project / test / other code) and the crash location healrt itself computes
(healrt.plugin.crash_location: the innermost frame inside the overlay).
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib
import importlib.machinery
import json
import os
import sys
from pathlib import Path
from typing import Any

from .procgroup import run_environment, run_group

MESSAGE_CAP = 500
TOOLS_DIR = Path(__file__).resolve().parents[1]


@dataclasses.dataclass(frozen=True)
class Failure:
    test: str           # node id, path relative to the subject root
    when: str           # setup / call / teardown
    type: str           # module-qualified unless builtins (healrt's naming)
    bases: list[str]    # qualified names of the exception class's MRO (not `mro`: a dataclass would take type.mro as its default)
    message: str
    raised_in: str      # where the innermost frame is: project / test / other
    crash: dict[str, Any]  # healrt's crash_location: innermost frame inside the overlay

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Failure:
        return cls(**raw)


@dataclasses.dataclass(frozen=True)
class SuiteResult:
    status: str                 # "ok" (pytest finished), "timeout", "error"
    outcomes: dict[str, str]    # node id -> passed / failed / skipped
    failures: list[Failure]
    seconds: float
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> SuiteResult:
        return cls(raw["status"], raw["outcomes"], [Failure.from_json(f) for f in raw["failures"]],
                   raw["seconds"], raw.get("detail", ""))


# --- parent side -------------------------------------------------------------------------------

def run_suite(*, python: str, workspace: Path, subject_root: Path, project_modules: list[str],
              project_roots: list[str], import_root: str, tests: list[str], pytest_args: list[str], pythonpath: list[str],
              env: dict[str, str], healrt_dir: Path, timeout_s: float) -> SuiteResult:
    """Run `tests` (absolute paths or node ids) with `workspace/src` overlaid on the subject;
    `import_root` is where the modules are imported from inside it (`src` in a src layout)."""
    report = workspace / "suite-report.json"
    report.unlink(missing_ok=True)
    (workspace / "tmp").mkdir(exist_ok=True)
    command = [python, "-P", "-m", "hbdata.suiterun", "--overlay", str(workspace / "src"), "--import-root", import_root,
               "--subject-root", str(subject_root), "--report", str(report),
               "--modules", ",".join(project_modules), "--roots", ",".join(project_roots), "--",
               *tests, "-q", "-p", "no:cacheprovider", "--import-mode=append", "--rootdir", str(workspace),
               f"--basetemp={workspace / 'basetemp'}", *pytest_args]
    finished = run_group(command, cwd=workspace, env=run_environment(workspace, [TOOLS_DIR, healrt_dir, *pythonpath], env),
                         timeout_s=timeout_s)
    if finished.timed_out:
        return SuiteResult("timeout", {}, [], finished.seconds, f"no result within {timeout_s:g}s")
    if finished.start_error is not None:
        return SuiteResult("error", {}, [], finished.seconds, f"cannot start {python}: {finished.start_error}")
    output = finished.output
    try:
        raw = json.loads(report.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return SuiteResult("error", {}, [], finished.seconds, output[-1500:])
    return SuiteResult("ok", raw["outcomes"], [Failure.from_json(f) for f in raw["failures"]], finished.seconds,
                       output[-1500:] if not raw["outcomes"] else "")


# --- child side --------------------------------------------------------------------------------

def _qualified(cls: type) -> str:
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


class Recorder:
    """The pytest plugin of the child: swaps the project in, then records every test's outcome."""

    def __init__(self, overlay: str, import_root: str, subject_root: str, modules: list[str], roots: list[str]) -> None:
        self.overlay = os.path.realpath(overlay)                           # mirrors the subject root
        self.source_dir = os.path.realpath(os.path.join(overlay, import_root))  # where imports come from
        self.import_root = import_root
        self.subject_root = os.path.realpath(subject_root)
        self.modules = modules
        self.roots = roots
        self.outcomes: dict[str, str] = {}
        self.failures: list[dict[str, Any]] = []
        self._intercept = importlib.import_module("healrt.intercept")
        self._not_instrumented = self._intercept.not_instrumented_reason
        self._crash_location = importlib.import_module("healrt.plugin").crash_location

    def swap_in_overlay(self) -> None:
        """healrt.intercept.install's swap, with healrt's own finder (first on sys.meta_path, so
        a test that puts the subject root first on sys.path still gets the overlay), but loading
        plain code: mining runs the mutants uninstrumented."""
        intercept = self._intercept
        names = [name for name in self.modules if intercept.overlayable(name)]  # frozen: never
        for loaded in list(sys.modules):
            if loaded.partition(".")[0] in names:
                del sys.modules[loaded]

        class PlainFinder(intercept.ProjectFinder):
            def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
                spec = super().find_spec(fullname, path, target)
                if spec is not None:
                    spec.loader = importlib.machinery.SourceFileLoader(fullname, spec.origin)
                return spec

        sys.path.insert(0, self.source_dir)
        sys.meta_path.insert(0, PlainFinder(self.source_dir, names, table=None, hooks_for=None, cache=None))
        importlib.invalidate_caches()

    def relative_test(self, item: Any) -> str:
        path = os.path.realpath(str(item.path))
        base = self.overlay if path.startswith(self.overlay + os.sep) else self.subject_root
        return f"{os.path.relpath(path, base)}::{item.nodeid.partition('::')[2]}"

    def kind_of(self, filename: str) -> str:
        """project: instrumented code in the overlay; test: test code in the overlay or the subject
        (healrt's rule: test files and test packages); other: the rest (stdlib, third party)."""
        path = os.path.realpath(filename)
        if path.startswith(self.overlay + os.sep):
            relative = os.path.relpath(path, self.overlay)
            in_roots = any(relative == r or relative.startswith(r.rstrip("/") + "/") for r in self.roots)
            # healrt judges a file relative to the directory it imports from.
            instrumented = self._not_instrumented(os.path.relpath(path, self.source_dir)) is None
            return "project" if in_roots and instrumented else "test"
        if path.startswith(self.subject_root + os.sep) \
                and self._not_instrumented(os.path.relpath(path, self.subject_root)) is not None:
            return "test"
        return "other"

    def record(self, item: Any, call: Any, report: Any) -> None:
        test = self.relative_test(item)
        if report.failed:
            self.outcomes[test] = "failed"
        elif report.skipped and call.when != "teardown":
            self.outcomes.setdefault(test, "skipped")
        elif call.when == "call":
            self.outcomes.setdefault(test, "passed")
        if not report.failed or call.excinfo is None:
            return
        error, tb = call.excinfo.value, call.excinfo.tb
        innermost = None
        while tb is not None:
            innermost = tb.tb_frame.f_code.co_filename
            tb = tb.tb_next
        self.failures.append({
            "test": test, "when": call.when, "type": _qualified(type(error)),
            "bases": [_qualified(c) for c in type(error).__mro__],
            "message": _message(error),
            "raised_in": self.kind_of(innermost) if innermost else "other",
            "crash": self._crash(error, call.excinfo.tb),
        })

    def _crash(self, error: BaseException, tb: Any) -> dict[str, Any]:
        """healrt's crash location, its file made relative to the subject root (as expected_crash is)."""
        crash = self._crash_location(error, tb, self.source_dir)
        if crash["file"] is not None and self.import_root:
            crash["file"] = os.path.join(self.import_root, crash["file"])
        return crash

    def write(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump({"outcomes": self.outcomes, "failures": self.failures}, handle)


def _message(error: BaseException) -> str:
    try:
        return str(error)[:MESSAGE_CAP]
    except Exception as failure:  # a broken __str__ of the very object the bug corrupted
        return f"<unprintable {type(error).__name__}: {type(failure).__name__}>"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hbdata.suiterun")
    parser.add_argument("--overlay", required=True)
    parser.add_argument("--import-root", default="")
    parser.add_argument("--subject-root", required=True)
    parser.add_argument("--report", required=True)
    parser.add_argument("--modules", required=True)
    parser.add_argument("--roots", required=True)
    parser.add_argument("pytest_args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    import pytest  # the harness, from the pristine library, before anything is swapped

    recorder = Recorder(args.overlay, args.import_root, args.subject_root, args.modules.split(","), args.roots.split(","))

    plugin = importlib.import_module("healrt.plugin").SwapFirstPlugin(recorder.swap_in_overlay, recorder.record)
    pytest_args = [a for a in args.pytest_args if a != "--"]
    code = int(pytest.main(pytest_args, plugins=[plugin]))
    recorder.write(args.report)
    return code


if __name__ == "__main__":
    sys.exit(main())
