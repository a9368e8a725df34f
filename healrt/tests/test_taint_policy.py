"""The protected-operation policy as healrt reads it (policy.py, spec `guard`, sinks' key inputs)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from healrt import sinks
from healrt.policy import (DEFAULT_FILE, Operation, PolicyError, When, default_policy_data, parse_policy,
                           read_policy_file)
from healrt.spec import load_spec

SOURCE = Path(__file__).resolve().parents[1]  # healrt/ in the repository (the tests are not installed)
POLICIES = SOURCE.parent / "dataset" / "policies"


def test_the_default_policy_is_one_file_shipped_with_healrt() -> None:
    assert Path(DEFAULT_FILE).name == "default_policy.yaml"
    assert (POLICIES / "default.yaml").resolve() == SOURCE / "healrt" / "default_policy.yaml"
    # The installed package data (or the source, when that is what runs) reads as the repository's.
    assert default_policy_data() == read_policy_file(POLICIES / "default.yaml")


def test_a_broken_policy_file_is_an_error_naming_the_line(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text("id: bad\noperations:\n  file_write: [\n    op: open\n  ]\n")
    with pytest.raises(PolicyError, match="bad.yaml:4"):
        read_policy_file(tmp_path / "bad.yaml")


def test_the_default_policy_parses_into_operations() -> None:
    policy = parse_policy(default_policy_data())
    by_op = {operation.op: operation for operation in policy.operations}
    assert len(by_op) == sum(len(v) for v in default_policy_data()["operations"].values())
    assert by_op["os.rename"].also_check == ("dst",) and by_op["os.rename"].index == 0
    assert by_op["pathlib.Path.unlink"].index == "receiver" and by_op["socket.socket.sendto"].index == "last"
    assert not by_op["os.fork"].has_key_input and by_op["os.remove"].has_key_input
    assert by_op["open"].when == When("mode", tokens=("w", "a", "x", "+"))
    assert by_op["os.open"].when is not None and by_op["os.open"].when.mask == (
        os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND)
    assert policy.checks == () and policy.notes == ()
    # Every default operation is guarded: by its audit event, or by a wrapper (policy ops not in
    # AUDITED are wrapped when their module is loaded; sqlite3's classes through the connect factory).
    unaudited = {op for op in by_op if op not in sinks.AUDITED}
    assert unaudited == {
        "pathlib.Path.unlink", "pathlib.Path.rmdir", "pathlib.Path.open", "pathlib.Path.write_text",
        "pathlib.Path.write_bytes", "os.system", "os.spawnv",
        "socket.socket.send", "socket.socket.sendall", "socket.create_connection", "urllib.request.urlopen",
        "http.client.HTTPConnection.request", "os.putenv",
        "os.unsetenv", "os.environ.__setitem__", "os.environ.__delitem__", "os.umask",
        "sqlite3.Cursor.execute", "sqlite3.Cursor.executemany", "sqlite3.Cursor.executescript",
        "sqlite3.Connection.execute", "sqlite3.Connection.executemany", "sqlite3.Connection.executescript",
    }


@pytest.mark.parametrize("when, value, holds", [
    ("mode contains any of w a x +", "w", True), ("mode contains any of w a x +", "rb", False),
    ("mode contains any of w a x +", "r+", True), ("mode contains any of w a x +", b"ab", True),
    ("mode contains any of w a x +", None, False),
    ("flags & (O_WRONLY | O_CREAT)", os.O_RDONLY, False), ("flags & (O_WRONLY | O_CREAT)", os.O_CREAT, True),
    ("flags & (O_WRONLY | O_CREAT)", "w", False),
])
def test_when_conditions(when: str, value: Any, holds: bool) -> None:
    policy = parse_policy({"operations": {"x": [{"op": "open", "arg": "file", "index": 0, "when": when}]}})
    condition = policy.operations[0].when
    assert condition is not None and condition.holds(value) is holds


def test_unknown_when_forms_apply_to_every_call_and_are_noted() -> None:
    policy = parse_policy({"operations": {"x": [{"op": "f", "arg": "a", "index": 0, "when": "a is odd"}]}})
    assert policy.operations[0].when is None
    assert policy.notes == ("policy: operations.x[0]: when 'a is odd' not understood; the entry applies to every call",)


@pytest.mark.parametrize("bad, message", [
    ({"operations": []}, "must be a mapping"),
    ({"operations": {"x": {}}}, "operations.x must be a list"),
    ({"operations": {"x": [{"arg": "a"}]}}, "operations.x[0]: 'op' must be a non-empty string"),
    ({"operations": {"x": [{"op": "f", "index": -1}]}}, "operations.x[0]: index must be"),
    ({"operations": {"x": [{"check": ""}]}}, "operations.x[0]: 'check' must be a non-empty string"),
    ({"operations": {"x": [{"check": "f()"}]}}, "operations.x[0]: check 'f()' must be a name"),
    ({"operations": {"x": [{"check": "S[k]"}]}}, "operations.x[0]: check 'S[k]' must be a name"),
    ({"operations": {"x": [{"check": "S['a\"b']"}]}}, "no quotes or backslashes in the key"),
    ({"operations": {"x": [{"check": "S[-1]"}]}}, "an item with a constant str or int key"),
])
def test_malformed_policies_name_the_entry(bad: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_policy(bad)


def test_checks_are_read_from_any_category() -> None:
    policy = parse_policy({"operations": {"security": [{"check": "ImageFile.LOAD_TRUNCATED_IMAGES"},
                                                       {"check": "STRICT", "module": "pkg.mod"},
                                                       {"check": " app.SETTINGS[ 'strict' ] "},
                                                       {"check": "LEVELS[2]"}]}})
    assert [(c.reads, c.module) for c in policy.checks] == [("ImageFile.LOAD_TRUNCATED_IMAGES", None),
                                                          ("STRICT", "pkg.mod"), ('app.SETTINGS["strict"]', None),
                                                          ("LEVELS[2]", None)]
    assert policy.operations == ()


def _spec(tmp_path: Path, **fields: Any) -> Path:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps({"source_dir": str(tmp_path), "project_modules": ["m"],
                                "pytest_args": ["t.py::test"], **fields}))
    return path


def test_the_spec_defaults_to_enforce_with_the_default_policy(tmp_path: Path) -> None:
    spec = load_spec(_spec(tmp_path))
    assert (spec.guard_mode, spec.guard_policy) == ("enforce", None)
    given = {"operations": {"x": [{"op": "os.remove", "arg": "path", "index": 0}]}}
    spec = load_spec(_spec(tmp_path, guard={"mode": "observe", "policy": given}))
    assert (spec.guard_mode, spec.guard_policy) == ("observe", given)


@pytest.mark.parametrize("guard, message", [
    ({"mode": "block"}, "guard.mode must be one of enforce, observe, off"),
    ({"policy": [1]}, "guard.policy must be a policy object"),
    ({"policy": {"operations": {"x": [{"op": ""}]}}}, "operations.x[0]: 'op' must be a non-empty string"),
    ([], "guard must be an object"),
])
def test_bad_guard_specs_are_refused(tmp_path: Path, guard: Any, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        load_spec(_spec(tmp_path, guard=guard))


def _operation(**fields: Any) -> Operation:
    base: dict[str, Any] = {"op": "x", "category": "c", "arg": None, "index": None, "also_check": (), "when": None}
    return Operation(**{**base, **fields})


def test_key_inputs_by_name_position_receiver_and_last() -> None:
    import inspect
    rename = _operation(op="os.rename", arg="src", index=0, also_check=("dst",))
    signature = inspect.signature(os.rename)
    assert sinks.key_inputs(rename, signature, False, ("a", "b"), {}) == [("src", "a"), ("dst", "b")]
    assert sinks.key_inputs(rename, signature, False, ("a",), {"dst": "b"}) == [("src", "a"), ("dst", "b")]

    def method(self: Any, data: Any, flags: int = 0) -> None: ...
    receiver = _operation(arg="self", index="receiver")
    assert sinks.key_inputs(receiver, None, True, ("me", "x"), {}) == [("self", "me")]
    last = _operation(arg="address", index="last")
    assert sinks.key_inputs(last, None, True, ("sock", b"d", 0, ("h", 1)), {}) == [("address", ("h", 1))]
    send = _operation(arg="data", index=0)
    assert sinks.key_inputs(send, inspect.signature(method), True, ("sock", b"d"), {}) == [("data", b"d")]
    # C methods have no signature: the key input by index, also_check parameters right after it.
    execute = _operation(arg="sql", index=0, also_check=("parameters",))
    assert sinks.key_inputs(execute, None, True, ("cursor", "select ?", (1,)), {}) == [
        ("sql", "select ?"), ("parameters", (1,))]


def test_when_is_decided_per_call_with_the_parameters_default() -> None:
    import inspect

    def open_like(self: Any, mode: str = "r", buffering: int = -1) -> None: ...
    operation = _operation(arg="self", index="receiver", when=When("mode", tokens=("w", "a", "x", "+")))
    signature = inspect.signature(open_like)
    assert not sinks.wrappers.applies(operation, signature, True, ("p",), {})
    assert sinks.wrappers.applies(operation, signature, True, ("p", "w"), {})
    assert sinks.wrappers.applies(operation, signature, True, ("p",), {"mode": "a"})
    assert not sinks.wrappers.applies(operation, signature, True, ("p", "rb"), {})
    assert sinks.wrappers.applies(operation, None, True, ("p",), {})  # cannot tell: conservative
