"""Record-and-replay mode (docs/control-protocol.md, "Record-and-replay mode"): wrap only the
statements that crash.

Phase 1 (record) runs the target test in a child process with nothing instrumented and records
the crash sites: for each exception that fails a target test, the innermost project frame whose
current instruction lies in a statement full mode would wrap. Phase 2 (this process) runs the
test again with only those statements wrapped and talks to the controller as in full mode.

Both phases run with fixed seeds (PYTHONHASHSEED, `random.seed`) and a fixed pytest basetemp, so
phase 2 reaches the recorded sites in the same states.

A crash at a site phase 2 did not wrap (it surfaces only after a heal changed the course of the
run) cannot pause: it has already unwound its frames when pytest reports it. Phase 2 then
restarts: the new site joins the record, the process re-executes itself (same pid, same control
connection, inherited) and replays the controller's earlier decisions at heal points 1..k
(`Script`) without asking, so the controller next sees `crash` for heal point k+1. A restart
re-runs the test from the start, side effects included: this is why replay needs determinism.
If the replayed run diverges (a heal point at another site than recorded), the script is dropped
and the controller is asked from that heal point on (`replay_diverged` event).
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
import os
import random
import subprocess
import sys
import types
from typing import Any, Callable, Generator

import pytest

from .catching import never_intercepted
from .rewrite import rewrite_module
from .sites import Selection, Site, SiteTable, _positions
from .spec import Spec

SEED = 0
HASH_SEED_ENV = "PYTHONHASHSEED"
RESTART_ENV = "HEALRT_REPLAY_RESTART"  # path of the restart state, set only in a restarted run
STARTED_ENV = "HEALRT_REPLAY_STARTED"  # time.monotonic() of the first phase, for wall_time_ms
RECORD_FORMAT = 1


@dataclasses.dataclass(frozen=True)
class CrashSite:
    file: str
    line: int
    col: int
    end_line: int
    source: str
    exception: str

    @property
    def key(self) -> tuple[str, int, int]:
        return self.file, self.line, self.col


# ------------------------------------------------------------------ seeds and paths

def fixed_hash_seed_env() -> dict[str, str] | None:
    """The environment to re-execute with if hash randomisation is not fixed yet, else None."""
    value = os.environ.get(HASH_SEED_ENV, "")
    if value.isdigit():
        return None
    return {**os.environ, HASH_SEED_ENV: str(SEED)}


def replay_dir(spec: Spec, spec_path: str) -> str:
    return spec.replay_dir or os.path.join(os.path.dirname(os.path.abspath(spec_path)), ".healrt-replay")


def pytest_args(spec: Spec, directory: str) -> list[str]:
    """The spec's pytest arguments with a fixed basetemp (unless the spec already fixes one)."""
    args = list(spec.pytest_args)
    if not any(arg == "--basetemp" or arg.startswith("--basetemp=") for arg in args):
        args.append("--basetemp=" + os.path.join(directory, "basetemp"))
    return args


def seed_random() -> None:
    random.seed(SEED)


# ------------------------------------------------------------------ finding crash sites

class SiteFinder:
    """Maps a traceback entry of uninstrumented project code to the statement full mode wraps there."""

    def __init__(self, is_project_file: Callable[[str], bool]) -> None:
        self._is_project_file = is_project_file
        self._tables: dict[str, SiteTable] = {}
        # Per file: the position of each `if` statement -> (line, col) of its test.
        self._if_statements: dict[str, dict[tuple[int | None, ...], tuple[int, int]]] = {}

    def crash_site(self, exc: BaseException) -> CrashSite | None:
        if never_intercepted(exc):
            return None
        entries: list[types.TracebackType] = []
        tb = exc.__traceback__
        while tb is not None:
            entries.append(tb)
            tb = tb.tb_next
        for entry in reversed(entries):  # innermost first
            code = entry.tb_frame.f_code
            if not self._is_project_file(code.co_filename):
                continue
            site = self._full_table(code.co_filename).site_at_instruction(code, entry.tb_lasti)
            if site is None:
                site = self._if_test_at(code, entry.tb_lasti)
            if site is not None:
                return CrashSite(site.file, site.line, site.col, site.end_line, site.source, type(exc).__name__)
        return None

    def _full_table(self, file: str) -> SiteTable:
        table = self._tables.get(file)
        if table is None:
            table = SiteTable()
            with open(file, "rb") as handle:
                source = handle.read().decode("utf-8")
            tree = ast.parse(source, file)
            self._if_statements[file] = {
                (node.lineno, node.end_lineno, node.col_offset, node.end_col_offset): (node.test.lineno, node.test.col_offset)
                for node in ast.walk(tree) if isinstance(node, ast.If)}
            rewrite_module(tree, file, source, table)
            self._tables[file] = table
        return table

    def _if_test_at(self, code: types.CodeType, lasti: int) -> Site | None:
        """CPython 3.11 gives the jump that takes an `if` test's truth value (where a failing
        `__bool__` raises) the whole if statement's position: the site is that statement's test."""
        positions = _positions(code)
        if not 0 <= lasti // 2 < len(positions):
            return None
        test = self._if_statements.get(code.co_filename, {}).get(positions[lasti // 2])
        if test is None:
            return None
        return next((site for site in self._tables[code.co_filename].sites
                     if site.kind == "if" and (site.line, site.col) == test), None)


def target_predicate(spec: Spec) -> Callable[[pytest.Item], bool]:
    """Whether a test item is (part of) the target test, as the outcome plugin decides it."""
    def is_target(item: pytest.Item) -> bool:
        if os.path.realpath(str(item.path)) != spec.target_file:
            return False
        return not spec.target_name or item.nodeid.partition("::")[2] == spec.target_name
    return is_target


class CrashSitePlugin:
    """Collects the crash site of every target test that fails with an exception from project code."""

    def __init__(self, is_target: Callable[[pytest.Item], bool], finder: SiteFinder) -> None:
        self._is_target = is_target
        self._finder = finder
        self.sites: list[CrashSite] = []

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
        yield  # after pytest's unittest support has moved a TestCase's error into call.excinfo
        if call.excinfo is None or not self._is_target(item):
            return
        site = self._finder.crash_site(call.excinfo.value)
        if site is not None and site.key not in {known.key for known in self.sites}:
            self.sites.append(site)


# ------------------------------------------------------------------ the record

def record_key(spec: Spec) -> str:
    """What phase 1's result depends on: the project sources, the test arguments, the interpreter."""
    digest = hashlib.sha256(f"{RECORD_FORMAT}\0{sys.version}\0{json.dumps(spec.pytest_args)}".encode())
    for name in sorted(spec.project_modules):
        for path in _module_files(spec.source_dir, name):
            digest.update(path.encode() + b"\0")
            with open(path, "rb") as handle:
                digest.update(hashlib.sha256(handle.read()).digest())
    return digest.hexdigest()


def _module_files(source_dir: str, name: str) -> list[str]:
    single = os.path.join(source_dir, name + ".py")
    if os.path.isfile(single):
        return [single]
    found = []
    for root, dirs, files in os.walk(os.path.join(source_dir, name)):
        dirs.sort()
        found.extend(os.path.join(root, f) for f in sorted(files) if f.endswith(".py"))
    return found


def write_record(path: str, key: str, sites: list[CrashSite]) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    payload = {"format": RECORD_FORMAT, "key": key, "sites": [dataclasses.asdict(s) for s in sites]}
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(payload, handle, indent=1)
    os.replace(temporary, path)


def read_record(path: str, key: str) -> list[CrashSite] | None:
    """The recorded sites, or None if there is no valid record for this key."""
    try:
        with open(path, encoding="utf-8") as handle:
            payload = json.load(handle)
    except (OSError, ValueError):
        return None
    if payload.get("format") != RECORD_FORMAT or payload.get("key") != key:
        return None
    return [CrashSite(**raw) for raw in payload["sites"]]


def selection(sites: list[CrashSite]) -> Selection:
    chosen: dict[str, set[tuple[int, int]]] = {}
    for site in sites:
        chosen.setdefault(site.file, set()).add((site.line, site.col))
    return {file: frozenset(points) for file, points in chosen.items()}


def run_record_phase(spec_path: str, record_path: str) -> int:
    """Phase 1 in a child process: no controller, output to a log next to the record."""
    env = {k: v for k, v in os.environ.items() if k not in ("HEALRT_CONTROL", RESTART_ENV)}
    os.makedirs(os.path.dirname(record_path), exist_ok=True)
    with open(record_path + ".log", "wb") as log:
        return subprocess.run([sys.executable, "-m", "healrt", "--spec", spec_path, "--record", record_path],
                              env=env, stdout=log, stderr=subprocess.STDOUT, check=False).returncode


# ------------------------------------------------------------------ restarts and the script

@dataclasses.dataclass(frozen=True)
class Decision:
    """What the controller decided at one heal point: a heal (code, resume) or `reraise`."""

    heal_point: int
    site: tuple[str, int, int]
    action: str  # "heal" or "reraise"
    code: str = ""
    resume: str = "skip"


class Script:
    """The decisions of earlier runs, replayed at the same heal points of a restarted run."""

    def __init__(self, decisions: list[Decision]) -> None:
        self._decisions = {d.heal_point: d for d in decisions}
        self.diverged = False

    def decision(self, heal_point: int, site: Site) -> Decision | None:
        """The decision to replay at this heal point; None to ask the controller."""
        if self.diverged:
            return None
        decision = self._decisions.get(heal_point)
        if decision is None:
            return None
        if decision.site != (site.file, site.line, site.col):
            self.diverged = True
            return None
        return decision


def write_restart_state(path: str, decisions: list[Decision], restarts: int) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump({"restarts": restarts, "decisions": [dataclasses.asdict(d) for d in decisions]}, handle)


def read_restart_state(path: str) -> tuple[list[Decision], int]:
    with open(path, encoding="utf-8") as handle:
        payload = json.load(handle)
    decisions = [Decision(**{**raw, "site": tuple(raw["site"])}) for raw in payload["decisions"]]
    return decisions, int(payload["restarts"])


def restart(argv: list[str], control_fd: int | None, state_path: str, started: float) -> None:
    """Re-executes this process (same pid); the control connection is inherited by fd number."""
    env = {**os.environ, RESTART_ENV: state_path, STARTED_ENV: repr(started)}
    if control_fd is not None:
        os.set_inheritable(control_fd, True)
        env["HEALRT_CONTROL_FD"] = str(control_fd)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, "-m", "healrt", *argv], env)
