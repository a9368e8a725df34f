"""Test helpers: a fake controller speaking the control protocol, and a runner for `python -m healrt`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import healrt
from healrt.controlserver import ControlServer

# Where the healrt under test is imported from (the source tree, or an installed package's
# site-packages): the runs these tests start import the same one.
HEALRT_ROOT = Path(healrt.__file__).resolve().parent.parent
RUN_TIMEOUT = 60


class Controller(ControlServer):
    """Records every message; calls `on_crash(self, context)` for each crash message."""

    def __init__(self, on_crash: Callable[[Controller, dict[str, Any]], None]) -> None:
        self._on_crash = on_crash
        self.messages: list[dict[str, Any]] = []
        super().__init__(RUN_TIMEOUT)

    # -- used by on_crash callbacks
    def read(self) -> dict[str, Any] | None:
        message = super().read()
        if message is not None:
            self.messages.append(message)
        return message

    def request(self, command: dict[str, Any]) -> dict[str, Any]:
        """Send a probe/heal and return its result (events in between are recorded)."""
        self.send(command)
        while True:
            message = self.read()
            assert message is not None, "runtime went away"
            if message["type"] in ("probe_result", "heal_result"):
                assert message["id"] == command["id"]
                return message

    def probe(self, code: str, inplace: bool = False, timeout_s: float | None = None) -> dict[str, Any]:
        command: dict[str, Any] = {"cmd": "probe", "id": f"p{len(self.messages)}", "code": code, "inplace": inplace}
        if timeout_s is not None:
            command["timeout_s"] = timeout_s
        return self.request(command)

    def heal(self, code: str, resume: str = "skip") -> dict[str, Any]:
        return self.request({"cmd": "heal", "id": f"h{len(self.messages)}", "code": code, "resume": resume})

    def on_message(self, message: dict[str, Any]) -> None:
        if message["type"] == "crash":
            self._on_crash(self, message["context"])

    # -- results
    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("type") == kind]

    @property
    def crashes(self) -> list[dict[str, Any]]:
        return [m["context"] for m in self.of_type("crash")]

    @property
    def outcome(self) -> dict[str, Any]:
        finished = self.of_type("finished")
        assert len(finished) == 1, self.messages
        return finished[0]["outcome"]


def reraise(ctl: Controller, context: dict[str, Any]) -> None:
    """An `on_crash` that gives every crash back to the program."""
    ctl.send({"cmd": "reraise"})


def write_project(directory: Path, module: str, source: str, target: str) -> tuple[Path, Path]:
    """A one-module project under `directory`: src/<module>.py and tests/test_<module>.py holding
    `target`; returns (source dir, target test file)."""
    source_dir = directory / "src"
    source_dir.mkdir(parents=True)
    (source_dir / f"{module}.py").write_text(source)
    tests = directory / "tests"
    tests.mkdir()
    test_file = tests / f"test_{module}.py"
    test_file.write_text(target)
    return source_dir, test_file


def write_spec(directory: Path, **fields: Any) -> Path:
    spec = {"intercept": True, "max_heal_points": 10, "outcome_file": str(directory / "outcome.json"), **fields}
    spec.setdefault("target_test", spec["pytest_args"][0])
    path = directory / "healrt-spec.json"
    path.write_text(json.dumps(spec))
    return path


def run_healrt(spec: Path, controller: Controller | None, python: str = sys.executable,
               cwd: Path | None = None, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Runs healrt on `spec`; `extra_env` is added to the run's environment (e.g. where a target test writes)."""
    env = {k: v for k, v in os.environ.items() if k not in ("HEALRT_CONTROL", "PYTEST_ADDOPTS")}
    env.update(extra_env or {})
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HEALRT_ROOT), os.environ.get("PYTHONPATH")]))
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    # As in the dataset checker: third-party plugins (pytest-benchmark imports statistics and
    # fractions) stay out of the run, and start-up is faster.
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    if controller is not None:
        env["HEALRT_CONTROL"] = controller.path
    completed = subprocess.run([python, "-m", "healrt", "--spec", str(spec)], env=env, cwd=cwd or spec.parent,
                               capture_output=True, text=True, timeout=RUN_TIMEOUT)
    if controller is not None:
        controller.join()
    return completed


def read_outcome(spec: Path) -> dict[str, Any]:
    return json.loads((spec.parent / "outcome.json").read_text())
