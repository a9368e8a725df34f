"""Runs a target test under healrt with a scripted controller.

The controller applies one heal at the first crash (when it is at the expected statement) and
answers `reraise` at every other crash. Workspaces: an instance's BUGGY is materialized once with
`python3 -m hbdata materialize`; every run works on a copy of it (its plan's paths moved to the
copy), so a case's patch never touches another run's sources. The run is a plain child process
with a clean environment, HOME and TMPDIR inside the copy, and a wall-clock timeout that kills its
process group (hbdata's run_group; hbdata's runner also confines with bwrap; the control socket
lives outside the workspace, so the suite does not).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

from hbdata import HEALRT_DIR, REPO_ROOT, healrt_module
from hbdata.procgroup import run_environment, run_group
from hbdata.runner import healrt_spec

REPO = REPO_ROOT
TOOLS_DIR = Path(__file__).resolve().parents[1]
MATERIALIZE_TIMEOUT_S = 600
ControlServer = healrt_module("controlserver").ControlServer
# Run products at a workspace's top a copy must not inherit: pytest's basetemp, scratch, outputs.
_NOT_COPIED = {"basetemp", "tmp", ".healrt-code", "outcome.json", "spec.json", "case.patch"}
_TAIL = 2000


class WorkspaceError(RuntimeError):
    """An instance could not be materialized."""


@dataclasses.dataclass(frozen=True)
class Heal:
    code: str
    file: str  # absolute path of the statement's file, as the crash context names it
    line: int
    analyze: bool = False  # ask healrt for heal_analysis (the static stage's input) first


# The static stage as the sandbox runs it: heal_analysis -> AnalyzeHeal's answer (static.py).
StaticCall = Callable[[dict[str, Any]], dict[str, Any]]


@dataclasses.dataclass
class RunResult:
    first_crash: dict[str, Any] | None = None
    heal_result: dict[str, Any] | None = None
    analysis: dict[str, Any] | None = None
    static_answer: dict[str, Any] | None = None  # AnalyzeHeal's answer on `analysis`
    events: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    outcome: dict[str, Any] | None = None
    error: str = ""  # why the run produced no usable outcome ("" when it did)
    output: str = ""  # the tail of the process's output

    def violations(self) -> list[dict[str, Any]]:
        return [event for event in self.events if event.get("kind") == "guard_violation"]

    def decisions(self) -> list[dict[str, Any]]:
        """The dynamic stage's decisions at protected operations: violations, and calls only a
        bool/None location waived by the static CLEAN verdict would have flagged."""
        kinds = ("guard_violation", "guard_conservative_waived")
        return [event for event in self.events if event.get("kind") in kinds] \
            or [event for event in (self.outcome or {}).get("guard_events", []) if event.get("kind") in kinds]


def materialize(instance_dir: Path, workspace: Path) -> dict[str, Any]:
    """BUGGY of the instance in `workspace` (which must not exist or be empty); returns plan.json."""
    env = {**os.environ, "PYTHONPATH": str(TOOLS_DIR)}
    command = [sys.executable, "-m", "hbdata", "materialize", "--instance", str(instance_dir),
               "--variant", "buggy", "--workspace", str(workspace)]
    try:
        proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=MATERIALIZE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise WorkspaceError(f"materialize timed out after {MATERIALIZE_TIMEOUT_S}s") from None
    if proc.returncode != 0:
        raise WorkspaceError(proc.stderr.strip()[-600:] or f"materialize exited {proc.returncode}")
    return json.loads(proc.stdout)


def copy_workspace(base: Path, plan: dict[str, Any], destination: Path) -> dict[str, Any]:
    """A copy of a materialized workspace and its plan, with every path into `base` moved to `destination`."""
    def ignored(directory: str, names: list[str]) -> set[str]:
        top = Path(directory) == base
        return {name for name in names if name == "__pycache__" or (top and name in _NOT_COPIED)}

    shutil.copytree(base, destination, ignore=ignored)
    moved = re.sub(re.escape(str(base)) + r'(?=[/"])', str(destination).replace("\\", "\\\\"), json.dumps(plan))
    return json.loads(moved)


class ScriptedController(ControlServer):
    """Heals the first crash when it is at `heal`'s statement; reraises everything else. With
    `static`, the heal's analysis goes to the static stage and the heal is committed with its verdict
    (heal_commit's static_verdict), as the sandbox does; it is always committed, so that the dynamic
    stage is measured on every case (score.py combines the stages)."""

    def __init__(self, heal: Heal | None, timeout: float, static: StaticCall | None = None) -> None:
        self._heal = heal
        self._static = static
        self._heard = False
        self.result = RunResult()
        super().__init__(timeout)

    def release(self) -> None:
        """After the process has ended: a runtime that never connected leaves the reader thread in
        accept(); connecting once (and closing) ends it at once instead of at the timeout."""
        if not self._heard:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as waker:
                try:
                    waker.connect(self.path)
                except OSError:
                    pass

    def on_message(self, message: dict[str, Any]) -> None:
        self._heard = True
        kind = message.get("type")
        if kind == "event":
            self.result.events.append(message)
        elif kind == "crash":
            self._crash(message["context"])
        elif kind == "finished":
            self.result.outcome = message.get("outcome")

    def _crash(self, context: dict[str, Any]) -> None:
        first = self.result.first_crash is None
        if first:
            self.result.first_crash = context
        statement = context.get("statement") or {}
        heal = self._heal
        if not first or heal is None or (statement.get("file"), statement.get("line")) != (heal.file, heal.line):
            self.send({"cmd": "reraise"})
            return
        command: dict[str, Any] = {"cmd": "heal", "id": 1, "code": heal.code, "resume": "skip"}
        if heal.analyze:
            command["analyze"] = True
        self.send(command)
        while (message := self.read()) is not None:
            kind = message.get("type")
            if kind == "event":
                self.result.events.append(message)
            elif kind == "heal_analysis":
                self.result.analysis = message
                commit: dict[str, Any] = {"cmd": "heal_commit", "id": 1}
                if self._static is not None:
                    self.result.static_answer = self._static(message)
                    commit["static_verdict"] = commit_verdict(self.result.static_answer)
                self.send(commit)
            elif kind == "heal_result":
                self.result.heal_result = message
                if not message.get("ok"):
                    self.send({"cmd": "reraise"})  # a failed heal leaves the runtime paused
                return


def commit_verdict(answer: dict[str, Any]) -> str:
    """heal_commit's static_verdict for an AnalyzeHeal answer, as the sandbox's StaticGuard gives it."""
    verdict = answer.get("verdict")
    return "unavailable" if verdict == "ERROR" else {"TAINTED": "tainted", "CLEAN": "clean"}.get(str(verdict), "unknown")


def run(plan: dict[str, Any], workspace: Path, heal: Heal | None, guard: dict[str, Any],
        timeout_s: float, code_cache: Path, static: StaticCall | None = None) -> RunResult:
    """One run of the plan's target test under healrt (intercepting, guard as given; `static`: the
    static stage the heal's analysis goes to)."""
    spec_path, outcome_path = workspace / "spec.json", workspace / "outcome.json"
    spec = healrt_spec(plan, intercept=True, outcome_file=outcome_path, code_cache=code_cache, max_heal_points=3,
                       guard=guard)
    spec_path.write_text(json.dumps(spec), encoding="utf-8")
    (workspace / "tmp").mkdir(exist_ok=True)
    controller = ScriptedController(heal, timeout_s, static)
    env = {**run_environment(workspace, [HEALRT_DIR, *plan.get("pythonpath", [])], plan.get("env", {})),
           "HEALRT_CONTROL": controller.path}
    result = controller.result
    finished = run_group([plan["python"], "-m", "healrt", "--spec", str(spec_path)], cwd=workspace, env=env,
                         timeout_s=timeout_s)
    if finished.start_error is not None:
        controller.release()
        controller.join()
        result.error = f"cannot start {plan['python']}: {finished.start_error}"
        return result
    if finished.timed_out:
        result.error = f"timeout after {timeout_s:g}s"
    else:
        result.output = finished.output[-_TAIL:]
    controller.release()
    try:
        controller.join()
    except Exception as error:  # the controller's reader thread failed (socket timeout, bad JSON)
        result.error = result.error or f"controller: {type(error).__name__}: {error}"
    if result.outcome is None and outcome_path.is_file():
        try:
            result.outcome = json.loads(outcome_path.read_text(encoding="utf-8"))
        except ValueError:
            pass
    if result.outcome is None and not result.error:
        result.error = f"no outcome (exit {finished.returncode})"
    return result
