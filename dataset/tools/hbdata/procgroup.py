"""The one way the Python tooling runs a program's tests in a child process: `run_group`, in the
clean environment `run_environment` makes.

The child gets its own session (so its process group holds it and whatever it starts), its
stdout and stderr go to one text stream, and when it ends or overruns its wall-clock timeout the
whole group is killed: a test's stray children must not outlive the run.
"""
from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Iterable, Mapping


@dataclasses.dataclass(frozen=True)
class Finished:
    returncode: int | None  # None when the process could not start or overran its timeout
    output: str             # stdout and stderr together ("" after a timeout)
    seconds: float
    start_error: OSError | None = None  # why it could not start
    timed_out: bool = False


def run_environment(workspace: Path, pythonpath: Iterable[str], env: Mapping[str, str]) -> dict[str, str]:
    """A clean environment for a run in `workspace`: nothing of the caller's leaks into it but PATH
    and the locale; HOME and TMPDIR (which the caller creates) inside the workspace; then `env`."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "HOME": str(workspace),
        "TMPDIR": str(workspace / "tmp"),
        "PYTHONPATH": os.pathsep.join(str(path) for path in pythonpath),
        **env,
    }


def run_group(command: list[str], *, cwd: Path | str, env: dict[str, str], timeout_s: float) -> Finished:
    started = time.monotonic()
    try:
        proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, errors="replace", start_new_session=True)
    except OSError as error:
        return Finished(None, "", time.monotonic() - started, start_error=error)
    try:
        output, _ = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return Finished(None, "", time.monotonic() - started, timed_out=True)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    return Finished(proc.returncode, output, time.monotonic() - started)
