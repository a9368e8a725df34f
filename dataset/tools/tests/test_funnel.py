"""The funnel on a tiny local subject: which mutants' failures are kept, and why the rest drop."""
from __future__ import annotations

import dataclasses
import os
import platform
import shutil
import sys
from pathlib import Path

import pytest

from hbdata import HEALRT_DIR, build, funnel, mine, runner, subjects
from hbdata.instances import load_instance
from hbdata.build import runs, selection
from hbdata.materialize import BASE_ENV
from hbdata.suiterun import Failure, run_suite

CORE = '''\
import sys

TABLE = {"a": 1}


def lookup(key):
    return TABLE.get(key, 0)


def checked(value):
    assert value >= 0, "negative"
    return value


def label(number):
    return str(number)


def run(argv):
    if not argv:
        sys.exit(3)
    return len(argv)
'''

TESTS = '''\
from calc.core import checked, label, lookup, run


def test_lookup():
    assert lookup("zz") == 0


def test_lookup_twice():
    assert lookup("zz") + lookup("a") == 1


def test_checked():
    assert checked(2) == 2


def test_label():
    assert label(5).upper() == "5"


def test_run():
    assert run(["x"]) == 1
'''


@pytest.fixture
def subject(tmp_path: Path) -> Path:
    root = tmp_path / "subject"
    (root / "calc").mkdir(parents=True)
    (root / "calc" / "__init__.py").write_text("")
    (root / "calc" / "core.py").write_text(CORE)
    (root / "tests").mkdir()
    (root / "tests" / "test_core.py").write_text(TESTS)
    return root


def edit(old: str, new: str, operator: str = "get-to-subscript") -> mine.Mutant:
    """A hand-made mutant of calc/core.py replacing one whole line."""
    lines = CORE.splitlines(keepends=True)
    number = next(i for i, line in enumerate(lines, 1) if line.strip() == old)
    indent = lines[number - 1][: len(lines[number - 1]) - len(lines[number - 1].lstrip())]
    return mine.Mutant("calc/core.py", number, number, f"{indent}{new}\n", operator, "f", "made up")


def failures_of(subject: Path, mutant: mine.Mutant | None, workspace: Path) -> list[Failure]:
    (workspace / "src" / "calc").mkdir(parents=True)
    for name in ("__init__.py", "core.py"):
        text = (subject / "calc" / name).read_text()
        if mutant is not None and f"calc/{name}" == mutant.file:
            text = mutant.apply(text)
        (workspace / "src" / "calc" / name).write_text(text)
    result = run_suite(python=sys.executable, workspace=workspace, subject_root=subject, project_modules=["calc"],
                       project_roots=["calc"], import_root="", tests=[str(subject / "tests" / "test_core.py")],
                       pytest_args=[],
                       pythonpath=[], env={**BASE_ENV, "PYTHONHASHSEED": "0"}, healrt_dir=HEALRT_DIR,
                       timeout_s=120)
    assert result.status == "ok", result.detail
    assert len(result.outcomes) == 5, result.outcomes
    return result.failures


def test_reference_passes_and_the_overlay_is_what_runs(subject: Path, tmp_path: Path) -> None:
    assert failures_of(subject, None, tmp_path / "ref") == []
    failures = failures_of(subject, edit('return TABLE.get(key, 0)', 'return TABLE[key]'), tmp_path / "ws")
    assert {f.test for f in failures} == {"tests/test_core.py::test_lookup", "tests/test_core.py::test_lookup_twice"}


@pytest.mark.parametrize("mutant, test, stage, reason", [
    (edit('assert value >= 0, "negative"', 'assert value < 0, "negative"', "swapped-arguments"),
     "test_checked", "runtime", "assertion"),
    (edit("return str(number)", "return number", "dropped-conversion"), "test_label", "project", "raised in test code"),
    (edit("if not argv:", "if argv:", "removed-emptiness-guard"), "test_run", "resumable", "SystemExit"),
], ids=["assertion", "test-code", "systemexit"])
def test_dropped_with_the_right_reason(subject: Path, tmp_path: Path, mutant: mine.Mutant, test: str,
                                       stage: str, reason: str) -> None:
    failures = failures_of(subject, mutant, tmp_path)
    assert [f.test for f in failures] == [f"tests/test_core.py::{test}"]
    counts = funnel.Funnel()
    assert funnel.screen(counts, [(mutant.key, failures)]) == []
    assert counts.dropped[stage] == {reason: 1}
    assert counts.entered[stage] == 1 and counts.kept(stage) == 0
    assert counts.entered["unique"] == 0


def test_a_crash_in_project_code_is_kept_and_duplicates_are_dropped(subject: Path, tmp_path: Path) -> None:
    first = edit('return TABLE.get(key, 0)', 'return TABLE[key]')
    second = edit('return TABLE.get(key, 0)', 'return TABLE[key] + 0', "off-by-one-index")
    runs = [(m.key, failures_of(subject, m, tmp_path / str(n))) for n, m in enumerate((first, second))]
    counts = funnel.Funnel()
    kept = funnel.screen(counts, runs)
    # Both tests crash under both mutants with KeyError('zz'): one candidate per (test, message).
    assert [(c.mutant_key, c.failure.test) for c in kept] == [
        (first.key, "tests/test_core.py::test_lookup"), (first.key, "tests/test_core.py::test_lookup_twice")]
    assert kept[0].failure.type == "KeyError" and kept[0].failure.raised_in == "project"
    assert kept[0].failure.crash == {"type": "KeyError", "file": "calc/core.py", "function": "lookup", "line": 7}
    assert counts.dropped["unique"] == {"same test and message": 2}
    assert counts.kept("unique") == 2


def test_a_project_conftest_gets_the_overlay_with_the_subject_on_the_path(subject: Path, tmp_path: Path) -> None:
    """As in a wheel's environment: the subject is on sys.path and the tests sit inside the package,
    next to a conftest that imports it (numpy/conftest.py). The conftest must import the overlay,
    or pytest stops at collection with an ImportPathMismatchError."""
    (subject / "calc" / "conftest.py").write_text("from calc import core\n\nLOADED = core\n")
    (subject / "calc" / "tests").mkdir()
    (subject / "calc" / "tests" / "test_core.py").write_text(
        "import calc.conftest\n\n" + TESTS + "\n\ndef test_same_module():\n"
        "    from calc import core\n    assert calc.conftest.LOADED is core\n")
    workspace = tmp_path / "ws"
    source = workspace / "src"
    shutil.copytree(subject / "calc", source / "calc")
    mutant = edit('return TABLE.get(key, 0)', 'return TABLE[key]')
    (source / "calc" / "core.py").write_text(mutant.apply(CORE))
    result = run_suite(python=sys.executable, workspace=workspace, subject_root=subject, project_modules=["calc"],
                       project_roots=["calc"], import_root="", tests=[str(source / "calc" / "tests" / "test_core.py")],
                       pytest_args=[], pythonpath=[str(subject)], env={**BASE_ENV, "PYTHONHASHSEED": "0"},
                       healrt_dir=HEALRT_DIR, timeout_s=120)
    assert result.status == "ok" and len(result.outcomes) == 6, result.detail
    assert {f.test for f in result.failures} == {"calc/tests/test_core.py::test_lookup",
                                                 "calc/tests/test_core.py::test_lookup_twice"}


def test_a_wheel_mutant_workspace_links_the_subject_and_never_writes_it(subject: Path, tmp_path: Path) -> None:
    """A wheel subject's files are hard links in the builder's workspaces (a copy of pandas per
    mutant run would cost more than the run); the mutated file alone gets its own copy first."""
    (subject / "calc" / "_ext").mkdir()
    (subject / "calc" / "_ext" / "fast.py").write_text("X = 1\n")
    local = subjects.resolve(f"local:{subject}")
    config = subjects.SubjectConfig(subject=local.spec, codebase="calc", python=platform.python_version(),
                                    project_roots=["calc"], test_paths=["tests"], pytest_args=[], deselect=[],
                                    deps=[], policy="default", not_instrumented=["calc/_ext"])
    wheel = dataclasses.replace(local, kind="wheel", config=config)
    unit = selection.Unit(("calc",), ("calc",))
    mutant = edit('return TABLE.get(key, 0)', 'return TABLE[key]')
    workspace = runs._workspace(wheel, unit, tmp_path, mutant)
    source = workspace / "src" / "calc"
    assert os.path.samefile(source / "__init__.py", subject / "calc" / "__init__.py")
    assert (source / "_ext").is_symlink() and (source / "_ext").resolve() == subject / "calc" / "_ext"
    assert not os.path.samefile(source / "core.py", subject / "calc" / "core.py")
    assert "TABLE[key]" in (source / "core.py").read_text()
    assert (subject / "calc" / "core.py").read_text() == CORE


def test_build_writes_an_instance_that_validates(subject: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole builder on the tiny subject: mine, run, funnel, determinism, write."""
    # The runner's sandbox mounts a private /tmp, which would hide this subject (it lives in
    # tmp_path); the sandbox is not what this test is about.
    monkeypatch.setattr(runner, "bwrap_usable", lambda: False)
    dataset = tmp_path / "dataset"
    (dataset / "instances").mkdir(parents=True)
    resolved = subjects.resolve(f"local:{subject}")
    config = subjects.SubjectConfig(subject=resolved.spec, codebase="calc", python=platform.python_version(),
                                    project_roots=["calc"], test_paths=["tests"], pytest_args=[], deselect=[],
                                    deps=[], policy="default")
    options = {**build.DEFAULTS, "operators": ["get-to-subscript"], "limit": 1, "write": True}
    counts, accepted = build.build(resolved, config, options, dataset)
    assert [a.id for a in accepted] == ["calc-core-keyerror-lookup"]
    instance = load_instance(dataset / "instances" / "calc-core-keyerror-lookup")
    assert instance.expected_crash.as_dict() == {"type": "KeyError", "file": "calc/core.py", "function": "lookup",
                                                 "line": 7}
    assert instance.provenance["operator"] == "get-to-subscript"
    assert instance.target_test in ("tests/test_core.py::test_lookup", "tests/test_core.py::test_lookup_twice")
    assert funnel.reference_record_path(instance).is_file()
    assert counts.kept("recorded") == 1
    assert "reference run recorded" in counts.table()
