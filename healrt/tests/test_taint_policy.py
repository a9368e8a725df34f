"""The protected-operation policy as healrt reads it (policy.py, spec `guard`, sinks' key inputs)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from healrt import sinks
from healrt.policy import DEFAULT_FILE, Operation, When, default_policy_data, parse_policy
from healrt.spec import load_spec

DEFAULT_YAML = Path(__file__).resolve().parents[2] / "dataset" / "policies" / "default.yaml"


def read_policy_yaml(path: Path) -> dict[str, Any]:
    """The YAML subset of dataset/policies (scalars, `operations:` of flow lists, one mapping a line)."""
    def scalar(text: str) -> Any:
        text = text.strip()
        if text.startswith('"'):
            return json.loads(text)
        if text == "null":
            return None
        return int(text) if re.fullmatch(r"-?\d+", text) else text

    policy: dict[str, Any] = {"operations": {}}
    category = None
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = "" if raw.lstrip().startswith("#") else raw.split(" #", 1)[0].rstrip()
        if not line.strip() or line == "operations:":
            continue
        if not line.startswith(" "):
            key, _, value = line.partition(":")
            policy[key] = scalar(value)
        elif line.strip().endswith("["):
            category = line.strip().partition(":")[0]
            policy["operations"][category] = []
        elif line.strip() == "]":
            category = None
        else:
            body = line.strip().rstrip(",")[1:-1]
            pairs = re.findall(r'\s*(\w+)\s*:\s*("(?:[^"\\]|\\.)*"|[^,]*)\s*(?:,|$)', body)
            policy["operations"][category].append({key: scalar(value) for key, value in pairs})
    return policy


def test_the_embedded_default_policy_is_dataset_default_yaml() -> None:
    embedded = default_policy_data()
    embedded.pop("about")
    assert embedded == read_policy_yaml(DEFAULT_YAML)
    assert Path(DEFAULT_FILE).name == "default_policy.json"


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
    assert not sinks._applies(operation, signature, True, ("p",), {})
    assert sinks._applies(operation, signature, True, ("p", "w"), {})
    assert sinks._applies(operation, signature, True, ("p",), {"mode": "a"})
    assert not sinks._applies(operation, signature, True, ("p", "rb"), {})
    assert sinks._applies(operation, None, True, ("p",), {})  # cannot tell: conservative
