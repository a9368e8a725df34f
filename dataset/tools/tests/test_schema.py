"""The instance schema and the small validator that reads it."""
from __future__ import annotations

import copy
from typing import Any, Callable

import pytest

from hbdata import schema
from hbdata.instances import instance_dirs
from hbdata.subjects import yamlsubset

VALID: dict[str, Any] = {
    "id": "stdlib-example-keyerror",
    "subject": "cpython-stdlib@3.11.7",
    "python": "3.11.7",
    "project_roots": ["statistics.py"],
    "bug_patch": "bug.patch",
    "target_test": "test/test_statistics.py::TestMean::test_ints",
    "expected_crash": {"type": "KeyError", "file": "statistics.py", "function": "_sum", "line": 194},
    "policy": "default",
    "provenance": {"kind": "injected", "operator": "get-to-subscript", "description": "partials[d]"},
    "determinism": {"PYTHONHASHSEED": "0"},
}


def _edit(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    data = copy.deepcopy(VALID)
    change(data)
    return data


def test_the_valid_example_passes() -> None:
    assert schema.validate(VALID) == []


def test_every_committed_instance_matches_the_schema() -> None:
    dirs = instance_dirs()
    assert dirs, "no instances found"
    problems = {d.name: schema.validate(yamlsubset.load_yaml((d / "instance.yaml").read_text())) for d in dirs}
    assert {name: p for name, p in problems.items() if p} == {}


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["expected_crash"].update(line="abc"), "expected_crash.line: must be an integer >= 1, got 'abc'"),
    (lambda d: d["expected_crash"].update(line=0), "expected_crash.line: must be >= 1, got 0"),
    (lambda d: d["expected_crash"].update(line=True), "expected_crash.line: must be an integer >= 1, got True"),
    (lambda d: d["expected_crash"].pop("function"), "expected_crash.function: required field is missing"),
    (lambda d: d.update(id="X"), "id: 'X' does not match the pattern"),
    (lambda d: d.update(subject="pypi:toolz"), "subject: 'pypi:toolz' does not match the pattern"),
    (lambda d: d.update(python="3.10.0"), "python: must be one of 3.11.7, 3.12.1, 3.13.0, 3.11.2; got '3.10.0'"),
    (lambda d: d.update(project_roots=[]), "project_roots: must have at least 1 item(s)"),
    (lambda d: d.update(project_roots=["../etc"]), "project_roots[0]: '../etc' does not match the pattern"),
    (lambda d: d.update(target_test="test_x.py"), "target_test: 'test_x.py' does not match the pattern"),
    (lambda d: d.update(target_test_origin="elsewhere"), "target_test_origin: must be one of subject, instance"),
    (lambda d: d.update(extra=1), "extra: unknown field"),
    (lambda d: d.update(fix_patch="fix.patch"),
     "(top level): must match exactly one of 2 alternatives, matches 2 (exactly one of: bug_patch | fix_patch)"),
    (lambda d: d.pop("bug_patch"), "(top level): must match exactly one of 2 alternatives, matches 0"),
    (lambda d: d["provenance"].update(operator="off-by-one"), "provenance.operator: must be one of removed-none-guard"),
    (lambda d: d["provenance"].pop("operator"),
     "provenance.operator: required field is missing (because provenance.kind is 'injected')"),
    (lambda d: d["provenance"].update(kind="real-bug"),
     "provenance.issue: required field is missing (because provenance.kind is 'real-bug')"),
    (lambda d: d["provenance"].update(kind="real-bug", issue="gh-1", fixed_in="3.12"),
     "fix_patch: required field is missing (because provenance.kind is 'real-bug')"),
    (lambda d: d["determinism"].update(seed="1"), "determinism.seed: 'seed' does not match the pattern"),
    (lambda d: d["determinism"].update(PYTHONHASHSEED=0), "determinism.PYTHONHASHSEED: must be a string, got 0"),
    (lambda d: d.update(expected_crash="KeyError"), "expected_crash: must be a mapping, got 'KeyError'"),
])
def test_violations_name_the_field_and_the_problem(change: Callable[[dict[str, Any]], None], message: str) -> None:
    errors = schema.validate(_edit(change))
    assert any(error.startswith(message) for error in errors), errors


def test_real_bug_shape_passes() -> None:
    def real_bug(d: dict[str, Any]) -> None:
        d.pop("bug_patch")
        d.update(fix_patch="fix.patch", target_test="test_own.py::test_it", target_test_origin="instance")
        d["provenance"] = {"kind": "real-bug", "issue": "gh-113594", "fixed_in": "3.11.8", "description": "x"}
    assert schema.validate(_edit(real_bug)) == []


def test_qualified_exception_types_and_synthetic_function_names_pass() -> None:
    def qualified(d: dict[str, Any]) -> None:
        d["expected_crash"].update(type="email.errors.HeaderParseError", function="<module>")
    assert schema.validate(_edit(qualified)) == []


def test_combinators_and_items() -> None:
    tiny = {"type": "array", "items": {"anyOf": [{"const": 1}, {"type": "string", "minLength": 2}]}}
    assert schema.validate([1, "ab"], tiny) == []
    [error] = schema.validate([1, "a"], tiny)
    assert error.startswith("[1]: matches none of the alternatives: [1]: must be 1, got 'a' | "
                            "[1]: must have at least 2 character(s)")


def test_a_keyword_the_validator_does_not_know_is_refused(tmp_path: Any) -> None:
    path = tmp_path / "s.json"
    path.write_text('{"type": "object", "properties": {"a": {"maxLength": 3}}}')
    with pytest.raises(schema.SchemaError, match=r"#/properties/a: unsupported schema keyword\(s\) \['maxLength'\]"):
        schema.load_schema(path)
