"""Loading instance directories: fields, cross-field checks, digest, errors naming file and field."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

import pytest

from conftest import STATISTICS
from hbdata.instances import Crash, InstanceError, digest, load_all, load_instance


def test_load_a_committed_instance(copy_instance: Callable[..., Path]) -> None:
    directory = copy_instance(STATISTICS)
    instance = load_instance(directory)
    assert instance.id == STATISTICS and instance.dir == directory.resolve()
    assert instance.tier == "injected" and instance.codebase == "cpython-stdlib"
    assert instance.project_roots == ("statistics.py",)
    assert instance.bug_patch == directory.resolve() / "bug.patch" and instance.fix_patch is None
    assert instance.target_test_origin == "subject"
    assert instance.expected_crash == Crash("KeyError", "statistics.py", "_sum", 194)
    assert instance.env == {"PYTHONHASHSEED": "0"} and instance.basetemp is None
    assert re.fullmatch(r"[0-9a-f]{64}", instance.digest)


def test_real_bug_instance_loads_with_its_own_test(own_real_bug: Path) -> None:
    instance = load_instance(own_real_bug)
    assert instance.tier == "real-bug" and instance.target_test_origin == "instance"
    assert instance.fix_patch == own_real_bug.resolve() / "fix.patch" and instance.bug_patch is None


def test_digest_covers_names_and_contents_but_not_bytecode(copy_instance: Callable[..., Path]) -> None:
    directory = copy_instance(STATISTICS)
    first = digest(directory)
    assert digest(directory) == first
    (directory / "__pycache__").mkdir()
    (directory / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    assert digest(directory) == first
    patch = directory / "bug.patch"
    patch.write_text(patch.read_text() + "\n")
    changed = digest(directory)
    assert changed != first
    patch.rename(directory / "bug2.patch")
    assert digest(directory) != changed  # same bytes under another name


def _error(directory: Path) -> str:
    with pytest.raises(InstanceError) as raised:
        load_instance(directory)
    return str(raised.value)


@pytest.mark.parametrize(("edit", "field", "problem"), [
    (lambda t: t.replace("line: 194", "line: abc"), "expected_crash.line", "must be an integer >= 1, got 'abc'"),
    (lambda t: t.replace("  kind: injected", "  kind: found"), "provenance.kind", "must be one of real-bug, injected"),
    (lambda t: t.replace("policy: default", "policy: nosuchpolicy"), "policy", "no such policy file"),
    (lambda t: t.replace("bug_patch: bug.patch", "bug_patch: missing.patch"), "bug_patch",
     "no such file 'missing.patch' in the instance directory"),
    (lambda t: t.replace("file: statistics.py", "file: fractions.py"), "expected_crash.file",
     "'fractions.py' lies in none of the project_roots"),
    (lambda t: t.replace('python: "3.11.7"', 'python: "3.12.1"'), "python",
     "a cpython-stdlib subject runs on its own interpreter 3.11.7, got '3.12.1'"),
    (lambda t: t.replace(f"id: {STATISTICS}", "id: another-name"), "id",
     f"must equal the directory name '{STATISTICS}', got 'another-name'"),
])
def test_malformed_field_names_file_field_and_problem(copy_instance: Callable[..., Path], edit: Callable[[str], str],
                                                      field: str, problem: str) -> None:
    directory = copy_instance(STATISTICS, edit)
    message = _error(directory)
    assert message.startswith(f"{directory / 'instance.yaml'}: {field}: "), message
    assert problem in message


def test_yaml_syntax_error_names_the_line(copy_instance: Callable[..., Path]) -> None:
    directory = copy_instance(STATISTICS, lambda t: t.replace("expected_crash:\n", "expected_crash: [\n"))
    message = _error(directory)
    assert message.startswith(f"{directory / 'instance.yaml'}: line ") and "unterminated flow list" in message


def test_missing_instance_yaml(tmp_path: Path) -> None:
    assert "instance.yaml: cannot read" in _error(tmp_path / "nothing-here")


def test_load_all_keeps_going_past_a_bad_instance(dataset: Path, copy_instance: Callable[..., Path]) -> None:
    copy_instance(STATISTICS)
    copy_instance(STATISTICS, lambda t: t.replace("line: 194", "line: -3"), new_name="broken-copy")
    loaded, errors = load_all(dataset)
    assert [i.id for i in loaded] == [STATISTICS]
    [error] = errors
    assert "broken-copy/instance.yaml: expected_crash.line: must be >= 1, got -3" in str(error)
