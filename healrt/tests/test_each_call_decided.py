"""Every protected call gets its own decision (sinks/audit.py, `hook`): two separate calls that pass
the same object are decided twice (only the audit events raised inside one call, Popen and then
its posix_spawn, are decided once: test_taint_flows).

`relocate` crashes reading a missing name; the heal writes the destination, a str that carries
its label. The code then writes to it, and writes to the same object again in a separate call:
in observe mode each write is a violation of its own, recorded; in enforce mode the first is blocked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers import Controller, run_healrt, write_project, write_spec

PROJECT = '''\
import os


def relocate(directory, names):
    target = names["target"]
    first = open(target, "w")
    first.write("first")
    first.close()
    second = open(target, "w")
    second.write("second")
    second.close()
    return os.path.getsize(target)
'''

TARGET = '''\
import os

import onceproj


def test_relocate():
    assert onceproj.relocate(os.environ["ONCE_OUT"], {}) == 6
'''


def run(tmp_path: Path, mode: str) -> Controller:
    source_dir, target = write_project(tmp_path, "onceproj", PROJECT, TARGET)
    out = tmp_path / "out"
    out.mkdir()

    def on_crash(ctl: Controller, context: dict[str, Any]) -> None:
        assert ctl.heal(f"target = {str(out / 'moved.txt')!r}")["ok"]

    spec = write_spec(tmp_path, source_dir=str(source_dir), project_modules=["onceproj"], guard={"mode": mode},
                      pytest_args=[f"{target}::test_relocate", "-q", "-p", "no:cacheprovider"])
    ctl = Controller(on_crash)
    run_healrt(spec, ctl, extra_env={"ONCE_OUT": str(out)})
    return ctl


def _writes(ctl: Controller) -> list[dict[str, Any]]:
    return [m for m in ctl.of_type("event") if m.get("kind") == "guard_violation" and m.get("op") == "open"]


def test_observe_records_both_writes_to_the_same_object(tmp_path: Path) -> None:
    ctl = run(tmp_path, "observe")
    writes = _writes(ctl)
    assert len(writes) == 2, writes
    assert writes[0]["sink"]["line"] != writes[1]["sink"]["line"]


def test_enforce_blocks_the_first_write(tmp_path: Path) -> None:
    ctl = run(tmp_path, "enforce")
    writes = _writes(ctl)
    assert len(writes) == 1 and ctl.outcome["passed"] is False, writes
