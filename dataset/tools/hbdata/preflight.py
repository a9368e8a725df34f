"""`python3 -m hbdata preflight`: one check that this machine can run instances (`--for run`) or the
repository's test suites (`--for tests`), installing what is missing when it may (docs/dataset.md §7).

Everything either purpose needs is one entry of REQUIREMENTS: a system tool, pytest on the
interpreters of the purpose, nox for the tests, Debian's stdlib test suite, the slice's subjects
in the cache, a writable directory. `check()` asks each entry for its problems; a problem carries the command that
provides the missing thing and, when this process can run that command itself, a `Fix` (an apt
package or a wheelhouse install). apt packages are installed together in one apt-get call; after
the installs the entries that had problems are asked again. Subjects come last: fetching them
needs the interpreters, and it only writes the cache, so it is never an "install".

Cheap when all is present (the main job runs it before every run): per distinct interpreter,
hbdata's own version check and at most one probe process, all in parallel, and no probe at all
while an earlier successful probe still holds (PROBES_FILE); tools are looked up on TOOL_PATH;
subjects already in the cache are only resolved, each catalog file read once.
"""
from __future__ import annotations

import argparse
import dataclasses
import functools
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Iterable

from . import subjects
from .debian import FetchError
from .instances import DATASET_DIR, Instance, InstanceError, instance_dirs, load_all, load_instance
from .subjects import DEBIAN_PYTHON, DEBIAN_PYTHON_VERSION, PYENV_VERSIONS, SubjectError
from .wheels import pip_install_command

PURPOSES = ("run", "tests")
READY, BAD_USAGE, NOT_READY = 0, 2, 3
REPO = DATASET_DIR.parent
# Where system tools are looked up (not the caller's PATH: what the sandbox starts must be the
# system's); HEALBENCH_TOOL_PATH replaces it (the tests point it at an empty directory).
TOOL_PATH = "/usr/local/bin:/usr/bin:/bin"
_PROBE_TIMEOUT_S = 120
_INSTALL_TIMEOUT_S = 1800
# What a probe learns about an interpreter in one process: its stdlib directory and whether
# `import pytest` works (None) or the error it raised.
_PROBE = """\
import json, os, sys, sysconfig
try:
    import pytest
    error = None
except BaseException as exc:
    error = f"{type(exc).__name__}: {exc}"
print(json.dumps({"stdlib": sysconfig.get_paths()["stdlib"], "pytest_error": error,
                  "path": [p for p in sys.path if os.path.isdir(p)]}))
"""
# Successful probes are remembered here (in the cache directory), each with the modification
# times of the interpreter and of every directory on its sys.path: installing or removing a
# package changes its directory, so a probe is reused only while none of them changed.
PROBES_FILE = "preflight-probes.json"


# --- problems and their fixes -----------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Fix:
    """A missing thing this process can install itself: an apt package, or a package (pytest,
    nox) from the wheelhouse into one interpreter (`target` is then its path)."""
    kind: str          # "apt" | "wheelhouse"
    target: str        # the apt package, or the interpreter
    label: str         # how the one "installed" line names it
    package: str = "pytest"  # what a wheelhouse fix installs


@dataclasses.dataclass(frozen=True)
class Missing:
    what: str                    # "bubblewrap (bwrap)"
    provides: str                # the command that provides it
    advice: str = "install it with"
    fix: Fix | None = None

    def message(self) -> str:
        return f"preflight: missing {self.what}: {self.advice}: {self.provides}"


# --- what the checks look at -------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Probe:
    python: Path | None                 # None: subjects.interpreter() found none
    version: str
    error: str | None = None            # the interpreter is missing, broken or not the version it claims
    stdlib: Path | None = None
    pytest_error: str | None = None
    path: tuple[str, ...] = ()          # the directories of its isolated sys.path


def probe(python: Path, version: str) -> Probe:
    """Run `python` once (isolated mode: only what is installed in the interpreter counts)."""
    try:
        done = subprocess.run([str(python), "-I", "-c", _PROBE], capture_output=True, text=True,
                              timeout=_PROBE_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as error:
        return Probe(python, version, error=f"cannot run {python}: {error}")
    if done.returncode != 0:
        return Probe(python, version, error=f"{python}: exit {done.returncode}: {done.stderr.strip()[-300:]}")
    try:
        found = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return Probe(python, version, error=f"{python}: unexpected probe output {done.stdout[-300:]!r}")
    return Probe(python, version, stdlib=Path(found["stdlib"]), pytest_error=found["pytest_error"],
                 path=tuple(found["path"]))


def _signature(python: Path, directories: Iterable[str]) -> list[list[object]] | None:
    try:
        return [[str(p), os.stat(p).st_mtime_ns] for p in [str(python.resolve()), *directories]]
    except OSError:
        return None


class ProbeMemo:
    """Successful probes from earlier preflights, reused while their signature holds."""

    def __init__(self, file: Path) -> None:
        self.file = file
        try:
            self.entries: dict[str, dict[str, object]] = json.loads(file.read_text())
        except (OSError, ValueError):
            self.entries = {}
        self.changed = False

    def get(self, python: Path, version: str) -> Probe | None:
        entry = self.entries.get(str(python))
        if not isinstance(entry, dict) or entry.get("version") != version:
            return None
        path = tuple(entry.get("path") or ())
        if entry.get("signature") != _signature(python, path):
            return None
        return Probe(python, version, stdlib=Path(str(entry["stdlib"])), path=path)

    def put(self, found: Probe) -> None:
        if found.python is None or found.error or found.pytest_error or found.stdlib is None:
            return                                   # failures are always probed again
        signature = _signature(found.python, found.path)
        if signature is not None:
            self.entries[str(found.python)] = {"version": found.version, "stdlib": str(found.stdlib),
                                               "path": list(found.path), "signature": signature}
            self.changed = True

    def save(self) -> None:
        if not self.changed:
            return
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(prefix=f".{self.file.name}.", dir=self.file.parent)
            with os.fdopen(handle, "w") as out:
                json.dump(self.entries, out, indent=1)
            os.replace(temporary, self.file)
        except OSError:
            pass                                     # a memo only: the next preflight probes again
        self.changed = False


def pytest_missing(python: Path, version: str, found: Probe | None = None) -> Missing | None:
    """The problem of an interpreter that cannot `import pytest` (None when it can), from a probe
    made now unless one is given. Debian's own interpreter gets pytest from apt, every other one
    from the wheelhouse."""
    found = found or probe(python, version)
    if found.error is None and found.pytest_error is None:
        return None
    problem = found.error or found.pytest_error or ""
    plain = problem == "ModuleNotFoundError: No module named 'pytest'"
    what = f"pytest for Python {version} ({python}{'' if plain else ': ' + problem})"
    if python == DEBIAN_PYTHON:
        return Missing(what, "apt-get install python3-pytest", fix=Fix("apt", "python3-pytest", "python3-pytest"))
    return Missing(what, " ".join(pip_install_command(python, "pytest")),
                   fix=Fix("wheelhouse", str(python), f"pytest for {version}"))


def _install_hint(version: str) -> str:
    if version == DEBIAN_PYTHON_VERSION:
        return f"apt-get install python3 (Debian 12's Python {DEBIAN_PYTHON_VERSION} at {DEBIAN_PYTHON})"
    return f"pyenv install {version}"


class Context:
    """One preflight: the purpose, its instances, and the interpreter probes, made once each."""

    def __init__(self, purpose: str, instances: list[Instance], runs_dir: Path) -> None:
        self.purpose = purpose
        self.instances = instances
        self.runs_dir = runs_dir
        self.tool_path = os.environ.get("HEALBENCH_TOOL_PATH", TOOL_PATH)
        self._probes: dict[str, Probe] = {}
        self._memo = ProbeMemo(subjects.cache_dir() / PROBES_FILE)

    @functools.cached_property
    def subjects(self) -> list[str]:
        return sorted({instance.subject for instance in self.instances}) if self.purpose == "run" else []

    @functools.cached_property
    def versions(self) -> list[str]:
        """The interpreters the purpose needs: every one healrt supports for the tests; for a run,
        each instance's `python` and the interpreter of each of its subjects."""
        if self.purpose == "tests":
            return [*PYENV_VERSIONS, DEBIAN_PYTHON_VERSION]
        wanted = {instance.python for instance in self.instances}
        wanted.update(config.python for spec in self.subjects if (config := self.config(spec)))
        return sorted(wanted)

    @functools.cached_property
    def _catalog(self) -> dict[str, list[tuple[str, subjects.SubjectConfig]]] | None:
        """The subject catalog by subject string, each file read once (subjects.config_for reads
        them all on every call); None when an entry is broken (resolve then reports it)."""
        catalog: dict[str, list[tuple[str, subjects.SubjectConfig]]] = {}
        try:
            for path in sorted(subjects.SUBJECTS_DIR.glob("*.yaml")):
                config = subjects.load_config(path)
                catalog.setdefault(config.subject, []).append((path.stem, config))
        except SubjectError:
            return None
        return catalog

    def catalog_name(self, spec: str) -> str | None:
        """The one catalog name of a subject string, which resolve() reads alone; None when there
        is none or more than one (resolve(spec) then decides, or says what is wrong)."""
        entries = (self._catalog or {}).get(spec, [])
        return entries[0][0] if len(entries) == 1 else None

    def config(self, spec: str) -> subjects.SubjectConfig | None:
        entries = (self._catalog or {}).get(spec, [])
        return entries[0][1] if len(entries) == 1 else None

    def probes(self) -> dict[str, Probe]:
        """Every needed interpreter, located (and its version checked) by hbdata's
        subjects.interpreter(), then probed unless an earlier preflight's probe still holds; in
        parallel. Later calls reuse the results until `forget()`."""
        todo = [v for v in self.versions if v not in self._probes]

        def one(version: str) -> Probe:
            try:
                python = subjects.interpreter(version)
            except SubjectError as error:
                return Probe(None, version, error=str(error))
            return self._memo.get(python, version) or probe(python, version)
        if todo:
            with ThreadPoolExecutor(max_workers=len(todo)) as pool:
                found = list(pool.map(one, todo))
            for result in found:
                self._memo.put(result)
            self._memo.save()
            self._probes.update(zip(todo, found))
        return {v: self._probes[v] for v in self.versions}

    def forget(self) -> None:
        """Drop the probes (after an install; it never adds an interpreter, only packages)."""
        self._probes.clear()


# --- the requirements --------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Requirement:
    """One entry of REQUIREMENTS: a name, the purposes that need it, and its problems in a context.
    `late` entries run after the installs (they need what the others provide)."""
    name: str
    purposes: tuple[str, ...]
    problems: Callable[[Context], list[Missing]]
    late: bool = False


def tool(command: str, package: str) -> Callable[[Context], list[Missing]]:
    def problems(context: Context) -> list[Missing]:
        if shutil.which(command, path=context.tool_path):
            return []
        what = package if package == command else f"{package} ({command})"
        return [Missing(what, f"apt-get install {package}", fix=Fix("apt", package, package))]
    return problems


def interpreters_with_pytest(context: Context) -> list[Missing]:
    found = []
    for version, result in context.probes().items():
        if result.python is None or result.error is not None:
            found.append(Missing(f"Python {version} ({result.error})", _install_hint(version)))
        elif (problem := pytest_missing(result.python, version, result)) is not None:
            found.append(problem)
    return found


def nox_for_the_tests(context: Context) -> list[Missing]:
    """nox, which runs healrt's tests on every interpreter (healrt/noxfile.py), for the python3
    that runs the test suites: the one running this preflight."""
    if importlib.util.find_spec("nox") is not None:
        return []
    python = Path(sys.executable)
    return [Missing(f"nox for {python}", " ".join(pip_install_command(python, "nox")),
                    fix=Fix("wheelhouse", str(python), "nox", package="nox"))]


def debian_stdlib_tests(context: Context) -> list[Missing]:
    """The stdlib's `test` package for Debian's interpreter (the real-code tests run it)."""
    result = context.probes().get(DEBIAN_PYTHON_VERSION)
    if result is None or result.stdlib is None:
        return []                                   # no such interpreter: reported by the pytest entry
    if (result.stdlib / "test" / "test_configparser.py").is_file():
        return []
    major_minor = ".".join(DEBIAN_PYTHON_VERSION.split(".")[:2])
    package = f"libpython{major_minor}-testsuite"
    return [Missing(f"{package} (the stdlib's test package for {DEBIAN_PYTHON}: no {result.stdlib}/test)",
                    f"apt-get install {package}", fix=Fix("apt", package, package))]


def writable(name: str, directory: Callable[[Context], Path], option: str) -> Callable[[Context], list[Missing]]:
    def problems(context: Context) -> list[Missing]:
        path = directory(context)
        try:
            path.mkdir(parents=True, exist_ok=True)
            handle, probe_file = tempfile.mkstemp(prefix=".preflight-", dir=path)
            os.close(handle)
            os.unlink(probe_file)
            return []
        except OSError as error:
            return [Missing(f"a writable {name} ({path}: {error.strerror or error})",
                            option, advice="make it writable or choose another with")]
    return problems


def subjects_in_cache(context: Context) -> list[Missing]:
    """Every distinct subject of the slice fetched with subjects.resolve (its Debian deps too);
    one progress line per subject on stderr when any of them is not in the cache yet."""
    specs = context.subjects
    cached = {spec: in_cache(spec, context.config(spec)) for spec in specs}
    report = not all(cached.values())
    found = []
    for number, spec in enumerate(specs, 1):
        start = time.monotonic()
        if report:
            print(f"preflight: subject {number}/{len(specs)} {spec} ...", end="", file=sys.stderr, flush=True)
        try:
            subjects.resolve(context.catalog_name(spec) or spec)
        except (SubjectError, FetchError, OSError) as error:
            if report:
                print(" failed", file=sys.stderr)
            found.append(Missing(f"subject {spec} (fetch failed: {error})",
                                 f"python3 -m hbdata fetch --subject {spec}", advice="fetch it with"))
            continue
        if report:
            print(" cached" if cached[spec] else f" fetched in {time.monotonic() - start:.1f} s", file=sys.stderr)
    return found


def in_cache(spec: str, config: subjects.SubjectConfig | None) -> bool:
    """Whether resolving `spec` (catalog entry `config`) would fetch nothing: the cache entries of
    docs/dataset.md §4, the subject's own and its deps', carry their marker. cpython-stdlib and
    local: need nothing."""
    try:
        parsed = subjects.parse_subject(spec)
    except SubjectError:
        return False
    entries = subjects.cache_entries(parsed, config, subjects.cache_dir())
    return all((entry / subjects.MARKER).is_file() for entry in entries)


# The one list: what each purpose needs. Nothing else names a package or a tool.
REQUIREMENTS: tuple[Requirement, ...] = (
    Requirement("bwrap", PURPOSES, tool("bwrap", "bubblewrap")),           # isolates sandboxed programs
    Requirement("patch", PURPOSES, tool("patch", "patch")),                 # applies instance patches
    Requirement("prlimit", PURPOSES, tool("prlimit", "util-linux")),        # resource limits of a run
    Requirement("setpriv", PURPOSES, tool("setpriv", "util-linux")),        # drops privileges of a run
    Requirement("pytest", PURPOSES, interpreters_with_pytest),              # on each interpreter of the purpose
    Requirement("nox", ("tests",), nox_for_the_tests),                      # runs healrt's tests
    Requirement("stdlib tests", ("tests",), debian_stdlib_tests),           # Debian's Lib/test
    Requirement("chromium", ("tests",), tool("chromium", "chromium")),      # renders the HTML reports in browser tests
    Requirement("runs directory", PURPOSES, writable("runs directory", lambda c: c.runs_dir, "--runs-dir DIR")),
    Requirement("cache directory", PURPOSES,
                writable("cache directory", lambda c: subjects.cache_dir(), "HEALBENCH_CACHE=DIR")),
    Requirement("subjects", ("run",), subjects_in_cache, late=True),        # fetched into the cache
)


# --- installing --------------------------------------------------------------------------------

def install_blockers(no_install: bool) -> list[str]:
    """Why nothing may be installed at all (empty: installs are allowed)."""
    reasons = []
    if no_install:
        reasons.append("--no-install was given")
    setting = os.environ.get("HEALBENCH_NO_INSTALL", "")
    if setting not in ("", "0"):
        reasons.append(f"HEALBENCH_NO_INSTALL={setting}")
    return reasons


def apt_blockers() -> list[str]:
    reasons = []
    if os.geteuid() != 0:
        reasons.append("not running as root")
    if shutil.which("apt-get") is None:
        reasons.append("no apt-get on PATH")
    return reasons


def _quietly(command: list[str], env: dict[str, str] | None = None) -> str | None:
    """Run a command with its output captured; None when it succeeds, else its output."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=_INSTALL_TIMEOUT_S,
                              env={**os.environ, **(env or {})})
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{' '.join(command)}: {error}"
    if done.returncode == 0:
        return None
    return f"{' '.join(command)}: exit {done.returncode}\n{(done.stdout + done.stderr).strip()[-3000:]}"


def install(fixes: list[Fix]) -> tuple[list[str], list[str]]:
    """Install what `fixes` name: the apt packages in one apt-get call, each wheelhouse package
    into its interpreter. Returns (what got installed, each as "<label> (<source>)",
    and the output of each install that failed)."""
    installed, failures = [], []
    packages = list(dict.fromkeys(f.target for f in fixes if f.kind == "apt"))
    if packages:
        # Without recommends: chromium's would bring systemd, avahi-daemon and printer tools onto the machine.
        failure = (_quietly(["apt-get", "update", "-qq"])
                   or _quietly(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages],
                               env={"DEBIAN_FRONTEND": "noninteractive"}))
        if failure:
            failures.append(failure)
        else:
            installed += [f"{package} (apt)" for package in packages]
    for fix in dict.fromkeys(f for f in fixes if f.kind == "wheelhouse"):
        failure = _quietly(pip_install_command(Path(fix.target), fix.package))
        if failure:
            failures.append(failure)
        else:
            installed.append(f"{fix.label} (wheelhouse)")
    return installed, failures


def installed_line(installed: list[str]) -> str:
    """`installed bubblewrap, python3-pytest (apt); pytest for 3.12.1, 3.13.0 (wheelhouse)`."""
    by_source: dict[str, list[str]] = {}
    for item in installed:
        label, _, source = item.rpartition(" (")
        by_source.setdefault(source.rstrip(")"), []).append(label)
    groups = []
    for source, labels in by_source.items():
        prefix = "pytest for " if all(label.startswith("pytest for ") for label in labels) else ""
        names = [label.removeprefix(prefix) for label in labels]
        groups.append(f"{prefix}{', '.join(names)} ({source})")
    return f"preflight: installed {'; '.join(groups)}"


def _writable_prefix(python: Path) -> bool:
    """Whether pip may write into the interpreter's installation (its prefix)."""
    return os.access(python.resolve().parent.parent, os.W_OK)


# --- the check ---------------------------------------------------------------------------------

@dataclasses.dataclass
class Result:
    ready: bool
    installed: list[str]
    missing: list[Missing]
    subjects: int
    interpreters: list[str]
    seconds: float

    def to_json(self) -> str:
        return json.dumps({"ready": self.ready, "installed": self.installed,
                           "missing": [{"what": m.what, "provides": m.provides} for m in self.missing],
                           "subjects": self.subjects, "interpreters": self.interpreters,
                           "seconds": round(self.seconds, 3)})


def _problems(requirements: Iterable[Requirement], context: Context) -> dict[str, list[Missing]]:
    return {r.name: found for r in requirements if (found := r.problems(context))}


def check(purpose: str, instances: list[Instance], runs_dir: Path, no_install: bool = False,
          start: float | None = None) -> Result:
    """Check (and where allowed install) everything `purpose` needs; messages go to stderr.
    `seconds` counts from `start` (a time.monotonic(); default: now)."""
    start = time.monotonic() if start is None else start
    context = Context(purpose, instances, runs_dir)
    needed = [r for r in REQUIREMENTS if purpose in r.purposes]
    early = [r for r in needed if not r.late]
    problems = _problems(early, context)

    installed: list[str] = []
    fixes = [m.fix for found in problems.values() for m in found if m.fix is not None]
    blockers = install_blockers(no_install)
    if fixes and blockers:
        print(f"preflight: not installing anything: {'; '.join(blockers)}", file=sys.stderr)
    elif fixes:
        refused = apt_blockers() if any(f.kind == "apt" for f in fixes) else []
        if refused:
            print(f"preflight: cannot install Debian packages: {'; '.join(refused)}", file=sys.stderr)
            fixes = [f for f in fixes if f.kind != "apt"]
        for fix in [f for f in fixes if f.kind == "wheelhouse" and not _writable_prefix(Path(f.target))]:
            print(f"preflight: cannot install {fix.label}: {Path(fix.target).resolve().parent.parent} "
                  f"is not writable", file=sys.stderr)
            fixes.remove(fix)
        installed, failures = install(fixes)
        for failure in failures:
            print(f"preflight: install failed: {failure}", file=sys.stderr)
        if installed:
            print(installed_line(installed), file=sys.stderr)
        context.forget()
        problems = _problems([r for r in early if r.name in problems], context)

    problems.update(_problems([r for r in needed if r.late], context))
    missing = [m for r in needed for m in problems.get(r.name, [])]
    for problem in missing:
        print(problem.message(), file=sys.stderr)
    return Result(not missing, installed, missing, len(context.subjects), context.versions,
                  time.monotonic() - start)


# --- the command -------------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--instances", action="append", metavar="ID,ID,...",
                        help="the instances of a run (default: every instance of the dataset)")
    parser.add_argument("--for", dest="purpose", choices=PURPOSES, default="run",
                        help="run: what running the instances needs (default); tests: what the test suites need")
    parser.add_argument("--runs-dir", type=Path, default=REPO / "runs",
                        help="the runs directory that must be writable (created; default: <repo>/runs)")
    parser.add_argument("--no-install", action="store_true", help="only check, install nothing")
    parser.add_argument("--json", action="store_true", help="end with one JSON line")


def select(ids: list[str] | None) -> list[Instance]:
    """The named instances (all of the dataset when None); InstanceError names unknown ids."""
    if not ids:
        loaded, errors = load_all()
        for error in errors:                         # `validate` reports them; they cannot run anyway
            print(f"preflight: skipping a malformed instance: {error}", file=sys.stderr)
        return loaded
    known = {directory.name: directory for directory in instance_dirs()}
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise InstanceError(f"unknown instance id{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}"
                            f" (no {DATASET_DIR / 'instances'}/<id>/instance.yaml)")
    return [load_instance(known[i]) for i in dict.fromkeys(ids)]


def preflight_command(args: argparse.Namespace) -> int:
    start = time.monotonic()
    ids = [i.strip() for group in (args.instances or []) for i in group.split(",") if i.strip()]
    if args.instances and not ids:
        print("preflight: --instances names no instance", file=sys.stderr)
        return BAD_USAGE
    try:
        instances = select(ids) if ids or args.purpose == "run" else []
    except InstanceError as error:
        print(f"preflight: {error}", file=sys.stderr)
        return BAD_USAGE
    result = check(args.purpose, instances, args.runs_dir.expanduser().resolve(), no_install=args.no_install,
                   start=start)
    if args.json:
        print(result.to_json())
    return READY if result.ready else NOT_READY
