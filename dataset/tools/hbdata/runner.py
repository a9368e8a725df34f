"""Runs a plan's target test through healrt and reads its outcome.

Without a controller healrt does not intercept; its outcome file says whether the target ran and
passed, and where it crashed (`crash`, see healrt/healrt/plugin.py). With `pause=True` it
intercepts and a controller that answers every pause with `reraise` listens (`PauseLog`): the run
says whether an agent would get a pause at all, and `reraise` keeps the program's own outcome. The run is confined with bubblewrap when it is
installed and usable: read-only `/`, the workspace writable, a private /tmp, no network, killed
with its parent. Without it, the run is a plain child process (still with a clean environment,
HOME and TMPDIR inside the workspace, and a wall-clock timeout that kills its process group).
"""
from __future__ import annotations

import dataclasses
import functools
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Mapping

from . import HEALRT_DIR, healrt_module, subjects
from .materialize import Plan
from .procgroup import Finished, run_environment, run_group

_BWRAP_PROBE_TIMEOUT_S = 20
_TAIL = 800


@dataclasses.dataclass
class PauseLog:
    """What a reraising controller saw: the exception type of each pause, and each construct whose
    catching healrt could not decide (`catch_undecided`: the usual reason a crash never pauses)."""
    pauses: list[str] = dataclasses.field(default_factory=list)
    undecided: list[str] = dataclasses.field(default_factory=list)
    connected: bool = False


@dataclasses.dataclass(frozen=True)
class RunResult:
    passed: bool
    ran: bool
    crash: dict[str, Any] | None
    exit_cause: str
    detail: str
    pause_log: PauseLog | None = None


def _reraising_controller(log: PauseLog, timeout_s: float) -> Any:
    class ReraisingController(healrt_module("controlserver").ControlServer):  # type: ignore[misc]
        def on_message(self, message: dict[str, Any]) -> None:
            log.connected = True
            if message.get("type") == "crash":
                log.pauses.append(str((message.get("context") or {}).get("exception_type")))
                self.send({"cmd": "reraise"})
            elif message.get("type") == "event" and message.get("kind") == "catch_undecided":
                log.undecided.append(f"{message.get('reason')} at {message.get('file')}:{message.get('line')} "
                                     f"({message.get('decision')})")
    return ReraisingController(timeout_s)


def healrt_spec(plan: Mapping[str, Any], *, intercept: bool, outcome_file: Path, code_cache: Path,
                **options: Any) -> dict[str, Any]:
    """healrt's run spec (docs/control-protocol.md) for a workspace's plan (plan.json's fields);
    `options` are further spec fields (guard, max_heal_points, mode, ...)."""
    return {
        "source_dir": plan["source_dir"],
        "project_modules": plan["project_modules"],
        "pytest_args": plan["pytest_args"],
        "target_test": plan["target_test"],
        "intercept": intercept,
        "outcome_file": str(outcome_file),
        "code_cache": str(code_cache),
        **options,
    }


def shared_code_cache() -> Path:
    """The compiled-rewrite cache every hbdata run of this machine shares (docs/dataset.md §7)."""
    return subjects.cache_dir() / "healrt-code"


def run_target(plan: Plan, timeout_s: float, pause: bool = False) -> RunResult:
    workspace = plan.workspace
    spec_path, outcome_path = workspace / "healrt-spec.json", workspace / "outcome.json"
    # One cache for all of hbdata's runs: its entries are keyed by the source bytes, interpreter,
    # rewriter and variant (docs/control-protocol.md, code_cache), so the instances and variants of
    # one subject share the rewrites of every module they do not change (pandas: 40 s cold, 5 s
    # warm). Only hbdata's own runs write it, and they run dataset code alone: no agent's heal or
    # probe ever runs with it writable (guardeval's runs, which do run heals, keep private caches).
    code_cache = shared_code_cache()
    code_cache.mkdir(parents=True, exist_ok=True)
    spec = healrt_spec(dataclasses.asdict(plan), intercept=pause, outcome_file=outcome_path, code_cache=code_cache)
    spec_path.write_text(json.dumps(spec, indent=1), encoding="utf-8")
    outcome_path.unlink(missing_ok=True)
    (workspace / "tmp").mkdir(exist_ok=True)
    command = [plan.python, "-m", "healrt", "--spec", str(spec_path)]
    env = run_environment(workspace, [HEALRT_DIR, *plan.pythonpath], plan.env)
    log, controller = PauseLog(), None
    readable = [str(HEALRT_DIR), *plan.pythonpath, *plan.readable]
    if pause:
        controller = _reraising_controller(log, timeout_s)
        env["HEALRT_CONTROL"] = controller.path
        readable.append(os.path.dirname(controller.path))  # connecting needs no write access to the mount
    if bwrap_usable():
        command = _bwrap(workspace, readable, writable=[str(code_cache)]) + command
    try:
        finished = run_group(command, cwd=workspace, env=env, timeout_s=timeout_s)
        return _finish(plan, finished, timeout_s, outcome_path, log if pause else None)
    finally:
        if controller is not None:
            controller.join()


def _finish(plan: Plan, finished: Finished, timeout_s: float, outcome_path: Path,
            log: PauseLog | None) -> RunResult:
    if finished.start_error is not None:
        return RunResult(False, False, None, "error", f"cannot start {plan.python}: {finished.start_error}", log)
    if finished.timed_out:
        return RunResult(False, False, None, "timeout", f"no result within {timeout_s:g}s", log)
    returncode, output = finished.returncode, finished.output
    try:
        outcome = json.loads(outcome_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return RunResult(False, False, None, f"no outcome (exit {returncode})", output[-_TAIL:].strip(), log)
    ran, passed = bool(outcome.get("ran")), bool(outcome.get("passed"))
    detail = str(outcome.get("detail") or "")
    if not ran or (not passed and not detail):
        detail = output[-_TAIL:].strip()  # pytest's output says why (not found, a collection error, ...)
    crash = outcome.get("crash")
    if crash and crash.get("file") is not None:
        crash = {**crash, "file": plan.subject_path(crash["file"])}  # expected_crash.file is subject-relative
    return RunResult(passed=passed, ran=ran, crash=crash, exit_cause=str(outcome.get("exit_cause")), detail=detail,
                     pause_log=log)


def _bwrap(workspace: Path, readable: list[str] | tuple[str, ...] = (), writable: list[str] | tuple[str, ...] = ()) -> list[str]:
    # Order matters: the private /tmp first, then what the run reads (the runtime, the subject and
    # its deps: any of them may live under /tmp, e.g. in a checkout there), what it may write
    # besides the workspace (the shared code cache), and the workspace on top.
    visible: list[str] = []
    for path in dict.fromkeys(readable):
        if os.path.exists(path):
            visible += ["--ro-bind", path, path]
    for path in dict.fromkeys(writable):
        visible += ["--bind", path, path]
    return ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", *visible,
            "--bind", str(workspace), str(workspace), "--unshare-net", "--die-with-parent",
            "--chdir", str(workspace), "--"]


@functools.lru_cache(maxsize=1)
def bwrap_usable() -> bool:
    """bwrap is installed and can create its namespaces here (a container may forbid them)."""
    if shutil.which("bwrap") is None:
        return False
    with tempfile.TemporaryDirectory(prefix="hbdata-bwrap-") as scratch:
        try:
            probe = subprocess.run(_bwrap(Path(scratch)) + ["true"], capture_output=True,
                                   timeout=_BWRAP_PROBE_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired):
            return False
    return probe.returncode == 0
