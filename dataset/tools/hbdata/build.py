"""`hbdata build --subject NAME`: the injected tier's builder (DESIGN §8, issue 4).

Mine mutants in the subject's project code (mine.py), run each against the tests that cover its
module (suiterun.py), pass the failures through the funnel (funnel.py), pick a balanced set of
candidates, check each for determinism through the real validation path, and with `--write`
write the accepted ones as instance directories. Prints the funnel's counts at every stage.

A stdlib subject is mined one module at a time: each module is its own instance's project root
(as in the hand-written stdlib instances), so healrt instruments only that module. Of the modules
the harness itself imports (pytest, healrt), only those the catalog lists (checked to run through
the sys.modules swap) are mined: others would give the harness and the test two different copies
of, say, `enum` (DESIGN §10). Frozen and built-in modules cannot be overlaid at all.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import dataclasses
import functools
import hashlib
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable, TextIO

from . import HEALRT_DIR, mine, suiterun
from .funnel import Candidate, Funnel, check_determinism, record_reference, screen
from .instances import DATASET_DIR, STDLIB_CODEBASE, InstanceError, load_all, load_instance
from .materialize import BASE_ENV, MaterializeError, project_modules
from .subjects import FetchError, Subject, SubjectConfig, SubjectError, cache_dir, resolve
from .suiterun import TOOLS_DIR, SuiteResult, run_suite

DEFAULTS = {"operators": list(mine.OPERATORS), "limit": 40, "max_per_module": 6, "mutants": 400,
            "mutants_per_module": 12, "seed": 0, "jobs": 2, "write": False, "only": [], "types": []}
DETERMINISM = {"PYTHONHASHSEED": "0"}
# The error-type mix to aim for (the reference's): TypeError > AttributeError > ValueError >
# IndexError > KeyError > others. A share, not a quota: types without candidates leave room.
TYPE_WEIGHTS = {"TypeError": 0.30, "AttributeError": 0.22, "ValueError": 0.16, "IndexError": 0.12,
                "KeyError": 0.10, "other": 0.10}
MAX_TEST_FILES = 3
BASELINE_LIMIT_S = 40.0      # a module whose tests take longer on REFERENCE is not mined (mutants x runs)
RUN_TIMEOUT_S = 300.0        # one healrt run of the target test, in the determinism check
PER_FUNCTION = 2             # instances per crashing function
NOT_MATERIALIZED = "not materialized"
MAX_NOT_MATERIALIZED = 5     # in a row: the staging or the tooling is broken, not the mutants
# Parts of the stdlib whose tests need a display, a terminal, the network, or run for minutes;
# and the test suite itself.
STDLIB_SKIP = {"test", "idlelib", "tkinter", "turtle", "turtledemo", "lib2to3", "ensurepip", "venv",
               "distutils", "multiprocessing", "asyncio", "concurrent", "curses", "pydoc", "pydoc_data",
               "pdb", "this", "antigravity", "webbrowser", "pty", "tty", "crypt", "getpass", "sqlite3",
               "ssl", "socketserver", "smtpd", "asyncore", "asynchat", "ftplib", "imaplib", "poplib",
               "nntplib", "telnetlib", "xmlrpc", "_pyio", "_pydecimal", "pickle", "compileall",
               "py_compile", "runpy", "pkgutil", "modulefinder", "profile", "cProfile", "pstats",
               "trace", "tracemalloc", "timeit", "dbm", "shelve", "sysconfig", "imp", "doctest", "unittest"}


@dataclasses.dataclass(frozen=True)
class Unit:
    """What one instance's project_roots will be: one stdlib module, or a subject's whole project."""
    roots: tuple[str, ...]
    modules: tuple[str, ...]       # top-level module names healrt overlays


@dataclasses.dataclass(frozen=True)
class Job:
    mutant: mine.Mutant
    unit: Unit
    tests: tuple[str, ...]         # test files, relative to the subject root
    baseline: SuiteResult


@dataclasses.dataclass
class Accepted:
    id: str
    directory: Path
    type: str
    module: str


# --- the command -------------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--subject", required=True, help="catalog name (dataset/subjects/NAME.yaml) or subject string")
    parser.add_argument("--operators", nargs="+", choices=mine.OPERATORS, help="default: all")
    parser.add_argument("--limit", type=int, help=f"instances to accept (default {DEFAULTS['limit']})")
    parser.add_argument("--max-per-module", type=int, help=f"instances per module (default {DEFAULTS['max_per_module']})")
    parser.add_argument("--mutants", type=int, help=f"mutants to run at most (default {DEFAULTS['mutants']})")
    parser.add_argument("--seed", type=int, help="seed of the mutant sample (default 0)")
    parser.add_argument("--jobs", type=int, help="test runs at once (default 2)")
    parser.add_argument("--only", nargs="+", metavar="MODULE", help="stdlib: mine only these modules")
    parser.add_argument("--types", nargs="+", metavar="TYPE", choices=sorted(TYPE_WEIGHTS),
                        help="pick only these error-type buckets (to even out the dataset's mix)")
    parser.add_argument("--write", action="store_true", help="write the accepted instances")


def _option(args: argparse.Namespace, name: str) -> Any:
    """An option's value, or its default when unset or when the caller's parser lacks it."""
    value = getattr(args, name, None)
    return DEFAULTS[name] if value is None else value


def build_command(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    try:
        subject = resolve(args.subject)
    except (SubjectError, FetchError) as error:
        print(f"hbdata build: {error}", file=sys.stderr)
        return 1
    config = subject.config or _stdlib_default(subject)
    if config is None:
        print(f"hbdata build: {args.subject}: no catalog entry (dataset/subjects/*.yaml) says how to test it",
              file=sys.stderr)
        return 1
    options = {name: _option(args, name) for name in DEFAULTS}
    try:
        funnel, accepted = build(subject, config, options, DATASET_DIR)
    except BuildError as error:
        print(f"hbdata build: {error}", file=sys.stderr)
        return 1
    print(funnel.table(), file=out)
    by_type = collections.Counter(a.type for a in accepted)
    print(f"accepted {len(accepted)}: " + ", ".join(f"{t} {n}" for t, n in by_type.most_common()), file=out)
    report = cache_dir() / "build" / _slug(subject.spec) / "funnel.json"
    report.write_text(json.dumps({"subject": subject.spec, **funnel.as_dict(),
                                  "accepted": [dataclasses.asdict(a) | {"directory": str(a.directory)}
                                               for a in accepted]}, indent=1) + "\n")
    return 0


def _stdlib_default(subject: Subject) -> SubjectConfig | None:
    """A stdlib subject without a catalog entry: its own Lib/test, the default policy."""
    if subject.kind != STDLIB_CODEBASE:
        return None
    return SubjectConfig(subject=subject.spec, codebase=STDLIB_CODEBASE, python=str(subject.version),
                         project_roots=[], test_paths=["test"], pytest_args=[], deselect=[], deps=[],
                         policy="default", import_root="")


def build(subject: Subject, config: SubjectConfig, options: dict[str, Any],
          dataset_dir: Path) -> tuple[Funnel, list[Accepted]]:
    funnel = Funnel()
    rng = random.Random(options["seed"])
    work = cache_dir() / "build" / _slug(subject.spec)
    work.mkdir(parents=True, exist_ok=True)
    root = Path(subject.root)
    units = _units(subject, config, options["only"])
    index = _test_index(root, config, subject.kind == STDLIB_CODEBASE)
    unit_of: dict[str, Unit] = {}
    mutants: list[mine.Mutant] = []
    for unit in units:
        for mutant in mine.enumerate_mutants(root, list(unit.roots), tuple(options["operators"])):
            unit_of[mutant.file] = unit
            mutants.append(mutant)
    funnel.mutants["mutants mined"] = len(mutants)
    existing = _existing(dataset_dir, config.codebase)
    patched = {file for file, _ in existing.changes}
    fresh = [m for m in mutants if m.file not in patched or _mutant_change(m, root) not in existing.changes]
    funnel.mutants["mutants already in the dataset"] = len(mutants) - len(fresh)
    selections = {file: _select_tests(file, unit_of[file], index) for file in {m.file for m in fresh}}
    print(f"{subject.spec}: {len(fresh)} mutants in {len(units)} unit(s)", file=sys.stderr)
    # REFERENCE first: a module whose tests do not pass (or take too long) is not mined.
    baselines = _baselines(subject, config, {selections[m.file]: unit_of[m.file] for m in fresh if selections[m.file]},
                           work, options["jobs"])
    usable = [m for m in fresh if selections[m.file] in baselines]
    funnel.mutants["mutants without usable tests"] = len(fresh) - len(usable)
    sample = _sample(usable, options, rng)
    funnel.mutants["mutants run"] = len(sample)
    jobs = [Job(m, unit_of[m.file], selections[m.file], baselines[selections[m.file]]) for m in sample]
    runs = _run_mutants(subject, config, jobs, work, options["jobs"], funnel)
    candidates = screen(funnel, runs)
    jobs_by_key = {job.mutant.key: job for job in jobs}
    accepted = _accept(subject, config, candidates, jobs_by_key, existing, options, work, dataset_dir, funnel, rng)
    return funnel, accepted


# --- units and tests ---------------------------------------------------------------------------

def _units(subject: Subject, config: SubjectConfig, only: list[str]) -> list[Unit]:
    if subject.kind != STDLIB_CODEBASE:
        return [Unit(tuple(config.project_roots), tuple(project_modules(config.project_roots, config.import_root)))]
    root = Path(subject.root)
    loaded, fixed = _harness_modules(str(subject.python))
    # The catalog's modules (checked to run through the sys.modules swap, some of them harness
    # modules), and every other module the harness does not load.
    declared = {Path(r).name.removesuffix(".py") for r in config.project_roots}
    units = []
    for path in sorted(root.iterdir()):
        name = path.name.removesuffix(".py")
        is_module = path.suffix == ".py" or (path / "__init__.py").is_file()
        if not is_module or name in fixed or name in STDLIB_SKIP or name.startswith("__") or "-" in name:
            continue
        if (name in loaded and name not in declared) or (only and name not in only):
            continue
        units.append(Unit((path.name,), (name,)))
    return units


def _harness_modules(python: str) -> tuple[set[str], set[str]]:
    """Top-level modules loaded once pytest, healrt and suiterun are imported by the subject's
    interpreter; and those frozen or built in (they cannot be overlaid at all)."""
    probe = ("import json, sys, pytest, healrt.__main__, healrt.intercept, hbdata.suiterun\n"
             "loaded = {m.partition('.')[0] for m in sys.modules}\n"
             "fixed = {m for m in sys.stdlib_module_names if not healrt.intercept.overlayable(m)}\n"
             "print(json.dumps([sorted(loaded), sorted(fixed)]))")
    env = {"PYTHONPATH": f"{TOOLS_DIR}:{HEALRT_DIR}", "PATH": "/usr/bin:/bin", **BASE_ENV}
    done = subprocess.run([python, "-P", "-c", probe], capture_output=True, text=True, timeout=120, env=env)
    if done.returncode != 0:
        raise SubjectError(f"{python}: cannot import the harness: {done.stderr.strip()[-500:]}")
    loaded, fixed = json.loads(done.stdout)
    return set(loaded), set(fixed)


@dataclasses.dataclass(frozen=True)
class TestFile:
    path: str          # relative to the subject root
    text: str


def _test_index(root: Path, config: SubjectConfig, stdlib: bool) -> list[TestFile]:
    """The subject's test files; for the stdlib all of Lib/test, as any module may be mined."""
    deselected = {d.partition("::")[0] for d in config.deselect if "::" not in d}
    found = []
    for test_path in ["test"] if stdlib else config.test_paths:
        top = root / test_path
        paths = [top] if top.is_file() else sorted(top.rglob("*.py"))
        for path in paths:
            name = path.name
            relative = path.relative_to(root).as_posix()
            # pytest's default test file names, or a file the catalog names explicitly.
            named = name.startswith("test_") or name.endswith("_test.py") or top.is_file()
            if named and relative not in deselected:
                found.append(TestFile(relative, path.read_text(encoding="utf-8", errors="replace")))
    return found


def _select_tests(file: str, unit: Unit, index: list[TestFile]) -> tuple[str, ...]:
    """The test files that most likely run a module: named after it, or importing it; a cheap
    stand-in for coverage. Only files that import the module's top-level package qualify (or
    live inside it: those import relatively); when none is named after the module or mentions it,
    those files are the fallback."""
    root = mine.root_of(file, list(unit.roots)) or unit.roots[0]
    dotted = mine.module_name(file, root)
    top, stem = dotted.split(".")[0], dotted.split(".")[-1].lstrip("_")
    # `import x`, `from x...`, or the name quoted: the stdlib's tests import deprecated and
    # C-accelerated modules through test.support helpers (`import_fresh_module('queue')`).
    mentions_top = re.compile(rf"\b(import|from)\s+{re.escape(top)}\b|['\"]{re.escape(top)}[.'\"]")
    mentions_module = re.compile(rf"\b{re.escape(dotted)}\b|\b{re.escape(stem)}\b")
    scored = []
    for test in index:
        if not (mentions_top.search(test.text) or mine.root_of(test.path, list(unit.roots))):
            continue
        parts = test.path.removesuffix(".py").split("/")
        bare = [p.removeprefix("test_").lstrip("_").lower() for p in parts[-2:]]
        names = {stem.lower(), f"{top}{stem}".lower(), f"{top}_{stem}".lower()}
        # The module's name as whole words of the file name: test_sortedlist, test_coverage_sortedlist.
        named = any(f"_{n}_" in f"_{b}_" for b in bare for n in names)
        mentions = len(mentions_module.findall(test.text))
        scored.append((not named, not mentions, -mentions, test.path))
    # Files named after the module are its tests; the rest only mention it (test_signal mentions
    # `statistics`), so they are a fallback for modules without a test file of their own.
    named_only = [entry for entry in scored if not entry[0]]
    mentioning = [entry for entry in scored if not entry[1]]
    chosen = named_only or mentioning or scored
    return tuple(entry[-1] for entry in sorted(chosen)[:MAX_TEST_FILES])


def _sample(mutants: list[mine.Mutant], options: dict[str, Any], rng: random.Random) -> list[mine.Mutant]:
    """Round robin over modules, and within a module over operators, so that no module and no
    common operator crowds out the rest."""
    by_module: dict[str, dict[str, list[mine.Mutant]]] = collections.defaultdict(lambda: collections.defaultdict(list))
    for mutant in mutants:
        by_module[mutant.file][mutant.operator].append(mutant)
    queues = []
    for file in sorted(by_module):
        per_op = {op: rng.sample(ms, len(ms)) for op, ms in sorted(by_module[file].items())}
        order = []
        while any(per_op.values()) and len(order) < options["mutants_per_module"]:
            for op in rng.sample(sorted(per_op), len(per_op)):
                if per_op[op] and len(order) < options["mutants_per_module"]:
                    order.append(per_op[op].pop())
        queues.append(order)
    rng.shuffle(queues)
    sample = []
    while any(queues) and len(sample) < options["mutants"]:
        for queue in queues:
            if queue and len(sample) < options["mutants"]:
                sample.append(queue.pop(0))
    return sample


# --- running -----------------------------------------------------------------------------------

def _workspace(subject: Subject, unit: Unit, work: Path, mutant: mine.Mutant | None) -> Path:
    workspace = Path(tempfile.mkdtemp(prefix="ws-", dir=work))
    source = workspace / "src"
    for root in unit.roots:
        origin, target = Path(subject.root) / root, source / root
        target.parent.mkdir(parents=True, exist_ok=True)
        if origin.is_dir():
            shutil.copytree(origin, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(origin, target)
    if mutant is not None:
        path = source / mutant.file
        path.write_text(mutant.apply(path.read_text(encoding="utf-8")), encoding="utf-8")
    return workspace


def _suite(subject: Subject, config: SubjectConfig, unit: Unit, tests: tuple[str, ...], workspace: Path,
           timeout_s: float) -> SuiteResult:
    source = workspace / "src"
    # A test inside a project root runs from the overlay, as materialize resolves target tests.
    paths = [str(source / t) if (source / t).is_file() else str(Path(subject.root) / t) for t in tests]
    args = [*config.pytest_args, *(f"--deselect={d}" for d in config.deselect)]
    return run_suite(python=str(subject.python), workspace=workspace, subject_root=Path(subject.root),
                     project_modules=list(unit.modules), project_roots=list(unit.roots),
                     import_root=config.import_root, tests=paths,
                     pytest_args=args, pythonpath=[str(p) for p in subject.pythonpath],
                     env={**BASE_ENV, **DETERMINISM}, healrt_dir=HEALRT_DIR, timeout_s=timeout_s)


def _cached(path: Path, compute: Callable[[], SuiteResult]) -> SuiteResult:
    """Suite results are kept: a rerun of the builder (a new seed, a larger limit) reuses them."""
    try:
        return SuiteResult.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        pass
    result = compute()
    if result.status != "error":  # a runner that could not start says nothing about the mutant
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(result.to_json()), encoding="utf-8")
    return result


# A cached suite result is only as good as the runner that produced it.
_RUNNER_VERSION = hashlib.sha256(Path(suiterun.__file__).read_bytes()).hexdigest()


def _key(*parts: Iterable[str] | str) -> str:
    text = "\0".join(p if isinstance(p, str) else "\1".join(p) for p in [_RUNNER_VERSION, *parts])
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _run_in_workspace(subject: Subject, config: SubjectConfig, unit: Unit, tests: tuple[str, ...], work: Path,
                      mutant: mine.Mutant | None, timeout_s: float) -> SuiteResult:
    workspace = _workspace(subject, unit, work, mutant)
    try:
        return _suite(subject, config, unit, tests, workspace, timeout_s)
    finally:
        shutil.rmtree(workspace, ignore_errors=True)


def _baselines(subject: Subject, config: SubjectConfig, wanted: dict[tuple[str, ...], Unit], work: Path,
               jobs: int) -> dict[tuple[str, ...], SuiteResult]:
    """REFERENCE runs of each test selection: which tests pass on the pristine subject, and how long
    they take. A selection that times out, errors, or passes nothing is unusable."""
    def run(tests: tuple[str, ...]) -> tuple[tuple[str, ...], SuiteResult]:
        unit = wanted[tests]
        key = _key(str(subject.python), unit.roots, tests, config.pytest_args, config.deselect)
        return tests, _cached(work / "baseline" / f"{key}.json",
                              lambda: _run_in_workspace(subject, config, unit, tests, work, None, BASELINE_LIMIT_S))

    usable = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for tests, result in pool.map(run, sorted(wanted)):
            passing = sum(1 for o in result.outcomes.values() if o == "passed")
            if result.status == "ok" and passing:
                usable[tests] = result
            else:
                print(f"  baseline unusable ({result.status}, {passing} passing): {' '.join(tests)} "
                      f"{result.detail[-300:]}", file=sys.stderr)
    return usable


def _run_mutants(subject: Subject, config: SubjectConfig, jobs: list[Job], work: Path, parallel: int,
                 funnel: Funnel) -> list[tuple[str, list]]:
    def run(job: Job) -> tuple[Job, SuiteResult]:
        key = _key(str(subject.python), job.mutant.key, job.tests, config.pytest_args, config.deselect)
        # A mutant may loop forever (an index that never reaches the end): allow a few times the
        # REFERENCE run's time, not more.
        timeout = min(BASELINE_LIMIT_S * 2, max(12.0, 5 * job.baseline.seconds + 5))
        return job, _cached(work / "runs" / f"{key}.json",
                            lambda: _run_in_workspace(subject, config, job.unit, job.tests, work, job.mutant, timeout))

    runs = []
    done = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=parallel) as pool:
        for job, result in pool.map(run, jobs):
            done += 1
            if done % 25 == 0:
                print(f"  ran {done}/{len(jobs)} mutants", file=sys.stderr)
            if result.status != "ok":
                funnel.mutants[f"mutant runs: {result.status}"] += 1
                continue
            passing = {test for test, outcome in job.baseline.outcomes.items() if outcome == "passed"}
            funnel.enter("run", len(result.failures))
            new = [f for f in result.failures if f.test in passing]
            if len(result.failures) > len(new):
                funnel.drop("run", "fails on REFERENCE too", len(result.failures) - len(new))
            if not new:
                funnel.mutants["mutant runs: no new failure"] += 1
            runs.append((job.mutant.key, new))
    return runs


# --- picking, checking, writing ----------------------------------------------------------------

@dataclasses.dataclass
class Existing:
    changes: set[tuple[str, str]]   # (file, changed lines) of this code base's bug patches
    ids: set[str]
    id_bases: set[str]


def _existing(dataset_dir: Path, codebase: str) -> Existing:
    """Instances already in the dataset: their ids, and what the bug patches of this code base
    change. A rerun must not write the same mutant twice, nor another stdlib version the same
    edit of the same module again."""
    instances, _ = load_all(dataset_dir)
    changes = {_change(i.bug_patch.read_text(encoding="utf-8")) for i in instances
               if i.codebase == codebase and i.bug_patch is not None and i.bug_patch.is_file()}
    ids = {d.name for d in (dataset_dir / "instances").iterdir()} if (dataset_dir / "instances").is_dir() else set()
    return Existing(changes, ids, {re.sub(r"-\d+$", "", i) for i in ids})


def _mutant_change(mutant: mine.Mutant, root: Path) -> tuple[str, str]:
    """What `_change` says of the mutant's patch, without diffing the whole file per mutant."""
    old = _lines(root, mutant.file)[mutant.start - 1: mutant.end]
    changed = ["-" + line.strip() for line in old] + ["+" + line.strip() for line in mutant.new.splitlines()]
    return mutant.file, "\n".join(changed)


@functools.lru_cache(maxsize=None)
def _lines(root: Path, relative: str) -> tuple[str, ...]:
    return tuple(_source(root, relative).splitlines())


def _change(patch: str) -> tuple[str, str]:
    """A patch's file and its removed and added lines, without positions or indentation."""
    lines = patch.splitlines()
    file = next((line[6:].strip() for line in lines if line.startswith("--- a/")), "")
    changed = [line[0] + line[1:].strip() for line in lines
               if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    return file, "\n".join(changed)


def _type_bucket(name: str) -> str:
    return name if name in TYPE_WEIGHTS else "other"


def _accept(subject: Subject, config: SubjectConfig, candidates: list[Candidate], jobs: dict[str, Job],
            existing: Existing, options: dict[str, Any], work: Path, dataset_dir: Path, funnel: Funnel,
            rng: random.Random) -> list[Accepted]:
    """Stages 6-7 over a balanced pick: the error-type bucket furthest below its share goes next;
    within a bucket, modules take turns and crash sites new to the dataset come first."""
    prefix = "stdlib" if config.codebase == STDLIB_CODEBASE else _slug(config.codebase)
    queues: dict[str, list[Candidate]] = collections.defaultdict(list)
    for candidate in rng.sample(candidates, len(candidates)):
        bucket = _type_bucket(candidate.failure.type)
        if options["types"] and bucket not in options["types"]:
            funnel.enter("picked")
            funnel.drop("picked", "error type not asked for")
            continue
        queues[bucket].append(candidate)
    for bucket, queue in queues.items():
        # Fresh id bases first, then spread over modules (the k-th candidate of each module before
        # the k+1-th of any).
        seen: collections.Counter[str] = collections.Counter()
        ranked = []
        for candidate in queue:
            module = candidate.failure.crash.get("file") or ""
            ranked.append(((_id_base(prefix, candidate, jobs) in existing.id_bases), seen[module], candidate))
            seen[module] += 1
        queues[bucket] = [c for _, _, c in sorted(ranked, key=lambda r: (r[0], r[1]))]
    accepted: list[Accepted] = []
    taken = {"mutants": set(), "sites": set(), "tests": set()}
    per_module: collections.Counter[str] = collections.Counter()
    per_function: collections.Counter[tuple[str, str]] = collections.Counter()
    staging = work / "staging"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    ids = set(existing.ids)

    def next_candidate() -> Candidate | None:
        while True:
            open_buckets = [b for b in queues if queues[b]]
            if not open_buckets:
                return None
            counts = collections.Counter(a.type for a in accepted)
            bucket = min(open_buckets, key=lambda b: (counts[b] + pending_types[b]) / TYPE_WEIGHTS[b])
            candidate = queues[bucket].pop(0)
            crash = candidate.failure.crash
            reason = _cap_reason(candidate, crash, taken, per_module, per_function, options)
            funnel.enter("picked")
            if reason:
                funnel.drop("picked", reason)
                continue
            taken["mutants"].add(candidate.mutant_key)
            taken["sites"].add((crash["file"], crash["line"]))
            taken["tests"].add(candidate.failure.test)
            per_module[crash["file"]] += 1
            per_function[(crash["file"], crash["function"])] += 1
            return candidate

    pending_types: collections.Counter[str] = collections.Counter()
    limit = options["limit"]
    broken = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=options["jobs"]) as pool:
        pending: dict[concurrent.futures.Future, tuple[Candidate, Path]] = {}
        while True:
            while len(pending) < options["jobs"] and len(accepted) + len(pending) < limit:
                candidate = next_candidate()
                if candidate is None:
                    break
                directory = _stage(subject, config, candidate, jobs[candidate.mutant_key], prefix, ids, staging)
                pending_types[_type_bucket(candidate.failure.type)] += 1
                pending[pool.submit(_determinism, directory, candidate)] = (candidate, directory)
            if not pending:
                break
            finished, _ = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in finished:
                candidate, directory = pending.pop(future)
                bucket = _type_bucket(candidate.failure.type)
                pending_types[bucket] -= 1
                funnel.enter("deterministic")
                ok, reason = future.result()
                broken = broken + 1 if reason == NOT_MATERIALIZED else 0
                if broken >= MAX_NOT_MATERIALIZED:
                    raise BuildError(f"{broken} candidates in a row could not be materialized (see above)")
                if not ok:
                    funnel.drop("deterministic", reason)
                    _release(candidate, taken, per_module, per_function)
                    shutil.rmtree(directory)
                    ids.discard(directory.name)
                    continue
                funnel.enter("recorded")
                target = directory
                if options["write"]:
                    target = dataset_dir / "instances" / directory.name
                    shutil.copytree(directory, target)
                accepted.append(Accepted(directory.name, target, bucket, candidate.failure.crash["file"]))
                print(f"  accepted {directory.name}: {candidate.failure.type} ({reason})", file=sys.stderr)
    # Candidates still queued when the limit was reached were never picked.
    leftover = sum(len(q) for q in queues.values())
    if leftover:
        funnel.enter("picked", leftover)
        funnel.drop("picked", "limit reached", leftover)
    return accepted


def _cap_reason(candidate: Candidate, crash: dict[str, Any], taken: dict[str, set], per_module: collections.Counter,
                per_function: collections.Counter, options: dict[str, Any]) -> str | None:
    if not crash.get("file") or not crash.get("line"):
        return "no crash frame in the overlay"
    if candidate.mutant_key in taken["mutants"]:
        return "one instance per mutant"
    if (crash["file"], crash["line"]) in taken["sites"]:
        return "one instance per crash site"
    if candidate.failure.test in taken["tests"]:
        return "one instance per target test"
    if per_module[crash["file"]] >= options["max_per_module"]:
        return "module cap"
    if per_function[(crash["file"], crash["function"])] >= PER_FUNCTION:
        return "function cap"
    return None


def _release(candidate: Candidate, taken: dict[str, set], per_module: collections.Counter,
             per_function: collections.Counter) -> None:
    """A candidate that failed the determinism check frees its mutant, site, test and caps."""
    crash = candidate.failure.crash
    taken["mutants"].discard(candidate.mutant_key)
    taken["sites"].discard((crash["file"], crash["line"]))
    taken["tests"].discard(candidate.failure.test)
    per_module[crash["file"]] -= 1
    per_function[(crash["file"], crash["function"])] -= 1


class BuildError(RuntimeError):
    """Something wrong with every candidate alike (the tooling, not the mutant): stop."""


def _determinism(directory: Path, candidate: Candidate) -> tuple[bool, str]:
    try:
        instance = load_instance(directory)
        result = check_determinism(instance, candidate.failure.message, RUN_TIMEOUT_S)
    except (InstanceError, MaterializeError, OSError) as error:
        print(f"  {directory.name}: {error}", file=sys.stderr)
        return False, NOT_MATERIALIZED
    if result.ok:
        record_reference(instance, result)
    return result.ok, result.reason


def _id_base(prefix: str, candidate: Candidate, jobs: dict[str, Job]) -> str:
    crash = candidate.failure.crash
    unit = jobs[candidate.mutant_key].unit
    root = mine.root_of(crash["file"] or "", list(unit.roots)) or unit.roots[0]
    parts = mine.module_name(crash["file"] or "", root).split(".")
    if prefix != "stdlib" and len(parts) > 1:
        parts = parts[1:]  # `toolz-itertoolz`, not `toolz-toolz.itertoolz`
    module = _slug("".join(parts))
    error = _slug(candidate.failure.type.rsplit(".", 1)[-1])
    function = _slug(crash["function"] or "module")
    return f"{prefix}-{module}-{error}-{function}"


def _slug(text: str) -> str:
    return re.sub(r"-+", "-", re.sub(r"[^a-z0-9.-]", "-", text.lower().replace("_", "-"))).strip("-.")


def _yaml_scalar(text: str) -> str:
    return text if re.fullmatch(r"[A-Za-z0-9_./:-]+", text) and ": " not in text else json.dumps(text)


def _stage(subject: Subject, config: SubjectConfig, candidate: Candidate, job: Job, prefix: str, ids: set[str],
           staging: Path) -> Path:
    """The candidate as an instance directory (instance.yaml + bug.patch) under staging/."""
    base = _id_base(prefix, candidate, {candidate.mutant_key: job})
    identifier, n = base, 1
    while identifier in ids:
        n += 1
        identifier = f"{base}-{n}"
    ids.add(identifier)
    directory = staging / identifier
    directory.mkdir()
    mutant, failure, crash = job.mutant, candidate.failure, candidate.failure.crash
    (directory / "bug.patch").write_text(mine.bug_patch(mutant, _source(Path(subject.root), mutant.file)),
                                         encoding="utf-8")
    test_name = failure.test.rpartition("::")[2]
    description = (f"{mutant.describe().removesuffix('.')}; {test_name} then raises {failure.type.rsplit('.', 1)[-1]} "
                   f"in {crash['function']}.")
    roots = ", ".join(job.unit.roots)
    (directory / "instance.yaml").write_text(f"""\
id: {identifier}
subject: {config.subject}
python: "{config.python}"
project_roots: [{roots}]
bug_patch: bug.patch
target_test: {_yaml_scalar(failure.test)}
expected_crash:
  type: {failure.type}
  file: {crash['file']}
  function: {_yaml_scalar(crash['function'])}
  line: {crash['line']}
policy: {config.policy}
provenance:
  kind: injected
  operator: {mutant.operator}
  description: {json.dumps(description)}
determinism:
  PYTHONHASHSEED: "0"
""", encoding="utf-8")
    return directory


def _source(root: Path, relative: str) -> str:
    return (root / relative).read_text(encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m hbdata.build", description=__doc__.splitlines()[0])
    add_arguments(parser)
    return build_command(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
