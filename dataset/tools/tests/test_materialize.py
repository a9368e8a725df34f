"""Workspaces and plan.json (docs/dataset.md §5)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import pytest

from conftest import STATISTICS
from hbdata import subjects
from hbdata.__main__ import main
from hbdata.instances import load_instance
from hbdata.materialize import MaterializeError, Plan, materialize, project_modules

HTMLPARSER = "stdlib-htmlparser-attributeerror-parse-starttag"


def _subject_root() -> Path:
    return subjects.resolve("cpython-stdlib@3.11.7").root


def test_buggy_workspace_has_the_patched_copy_and_a_plan(copy_instance: Callable[..., Path], tmp_path: Path) -> None:
    instance = load_instance(copy_instance(STATISTICS))
    workspace = tmp_path / "ws"
    plan = materialize(instance, "buggy", workspace)
    pristine = (_subject_root() / "statistics.py").read_text()
    patched = (workspace / "src" / "statistics.py").read_text()
    assert "partials_get(d, 0)" in pristine and "partials_get(d, 0)" not in patched
    assert "partials[d] = partials[d] + n" in patched
    assert Plan.load(workspace / "plan.json") == plan
    assert plan.instance == STATISTICS and plan.variant == "buggy" and plan.digest == instance.digest
    assert plan.python == str(subjects.interpreter("3.11.7"))  # pyenv's, wherever its root is
    assert plan.source_dir == str(workspace.resolve() / "src") and plan.project_modules == ["statistics"]
    # The stdlib's test lies outside the project roots: it runs from the subject itself.
    target = f"{_subject_root()}/test/test_statistics.py::TestMean::test_ints"
    assert plan.target_test == target
    assert plan.pytest_args[:6] == [target, "-q", "-p", "no:cacheprovider", "--rootdir", str(workspace.resolve())]
    assert f"--basetemp={workspace.resolve() / 'basetemp'}" in plan.pytest_args
    assert plan.env["PYTHONHASHSEED"] == "0"
    assert str(_subject_root()) in plan.readable


def test_reference_of_an_injected_instance_is_the_pristine_subject(copy_instance: Callable[..., Path],
                                                                    tmp_path: Path) -> None:
    instance = load_instance(copy_instance(HTMLPARSER))
    materialize(instance, "reference", tmp_path / "ws")
    copied = sorted(p.relative_to(tmp_path / "ws" / "src").as_posix() for p in (tmp_path / "ws" / "src").rglob("*.py"))
    assert copied == sorted(p.relative_to(_subject_root()).as_posix() for p in (_subject_root() / "html").rglob("*.py"))
    for name in copied:
        assert (tmp_path / "ws" / "src" / name).read_bytes() == (_subject_root() / name).read_bytes()


def test_real_bug_variants_and_the_instance_test(own_real_bug: Path, tmp_path: Path) -> None:
    instance = load_instance(own_real_bug)
    buggy = materialize(instance, "buggy", tmp_path / "buggy")
    reference = materialize(instance, "reference", tmp_path / "reference")
    assert (tmp_path / "buggy" / "src" / "colorsys.py").read_bytes() == (_subject_root() / "colorsys.py").read_bytes()
    assert "r = 0.0 if r is None else r" in (tmp_path / "reference" / "src" / "colorsys.py").read_text()
    for plan, ws in ((buggy, tmp_path / "buggy"), (reference, tmp_path / "reference")):
        assert plan.target_test == f"{ws.resolve()}/tests/test_own.py::test_none_channel_is_black"
        assert (ws / "tests" / "test_own.py").read_text() == (own_real_bug / "test_own.py").read_text()


def test_a_patch_that_does_not_apply_names_the_patch(copy_instance: Callable[..., Path], tmp_path: Path) -> None:
    directory = copy_instance(STATISTICS)
    patch = directory / "bug.patch"
    patch.write_text(patch.read_text().replace("partials_get(d, 0)", "partials_get(d, 1)"))
    with pytest.raises(MaterializeError, match=r"bug\.patch: does not apply to cpython-stdlib@3\.11\.7 \(buggy\)"):
        materialize(load_instance(directory), "buggy", tmp_path / "ws")


def test_missing_project_root_and_target_test(copy_instance: Callable[..., Path], tmp_path: Path) -> None:
    directory = copy_instance(STATISTICS, lambda t: t.replace("[statistics.py]", "[statistics.py, nosuch.py]"))
    with pytest.raises(MaterializeError, match=r"instance\.yaml: project_roots: 'nosuch\.py': not found in the subject"):
        materialize(load_instance(directory), "reference", tmp_path / "ws1")
    directory = copy_instance(STATISTICS, lambda t: t.replace("test/test_statistics.py", "test/test_nosuch.py"),
                              new_name="stdlib-no-target")
    with pytest.raises(MaterializeError, match=r"target_test: no such file 'test/test_nosuch\.py'"):
        materialize(load_instance(directory), "reference", tmp_path / "ws2")


def test_a_non_empty_workspace_is_refused(copy_instance: Callable[..., Path], tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "keep.txt").write_text("mine")
    with pytest.raises(MaterializeError, match="is not empty"):
        materialize(load_instance(copy_instance(STATISTICS)), "buggy", tmp_path / "ws")
    assert (tmp_path / "ws" / "keep.txt").read_text() == "mine"


def test_project_modules_are_top_level_names() -> None:
    assert project_modules(["toolz", "colorsys.py", "email/", "email/message.py", "pkg/sub/mod.py"]) == \
        ["toolz", "colorsys", "email", "pkg"]


def test_cli_prints_the_plan(copy_instance: Callable[..., Path], tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    directory = copy_instance(STATISTICS)
    assert main(["materialize", "--instance", str(directory), "--variant", "buggy", "--workspace",
                 str(tmp_path / "ws")]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads((tmp_path / "ws" / "plan.json").read_text())
    assert main(["materialize", "--instance", str(directory), "--variant", "buggy", "--workspace",
                 str(tmp_path / "ws")]) == 1
    assert "is not empty" in capsys.readouterr().err
