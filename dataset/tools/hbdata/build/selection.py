"""Which code is mined and which tests run it: units (one stdlib module each, or a subject's whole
project), the harness's own modules (never mined), each module's test files (a cheap stand-in for
coverage), and the sample of mutants to run.
"""
from __future__ import annotations

import collections
import dataclasses
import json
import random
import re
import subprocess
from pathlib import Path
from typing import Any

from .. import HEALRT_DIR, mine
from ..instances import STDLIB_CODEBASE
from ..materialize import BASE_ENV, project_modules
from ..subjects import Subject, SubjectConfig, SubjectError
from ..suiterun import TOOLS_DIR

MAX_TEST_FILES = 3
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


def units(subject: Subject, config: SubjectConfig, only: list[str]) -> list[Unit]:
    if subject.kind != STDLIB_CODEBASE:
        return [Unit(tuple(config.project_roots), tuple(project_modules(config.project_roots, config.import_root)))]
    root = Path(subject.root)
    loaded, fixed = harness_modules(str(subject.python))
    # The catalog's modules (checked to run through the sys.modules swap, some of them harness
    # modules), and every other module the harness does not load.
    declared = {Path(r).name.removesuffix(".py") for r in config.project_roots}
    found = []
    for path in sorted(root.iterdir()):
        name = path.name.removesuffix(".py")
        is_module = path.suffix == ".py" or (path / "__init__.py").is_file()
        if not is_module or name in fixed or name in STDLIB_SKIP or name.startswith("__") or "-" in name:
            continue
        if (name in loaded and name not in declared) or (only and name not in only):
            continue
        found.append(Unit((path.name,), (name,)))
    return found


def harness_modules(python: str) -> tuple[set[str], set[str]]:
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


def test_index(root: Path, config: SubjectConfig, stdlib: bool) -> list[TestFile]:
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


def select_tests(file: str, unit: Unit, index: list[TestFile]) -> tuple[str, ...]:
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


def sample_mutants(mutants: list[mine.Mutant], options: dict[str, Any], rng: random.Random) -> list[mine.Mutant]:
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
