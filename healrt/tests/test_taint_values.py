"""Heal labels on values (taint.py): wrappers keep the program's semantics and carry the label
through the operations that compute with them; object and location labels; the scan sinks use."""

from __future__ import annotations

import copy
import json
import math
import os
import pathlib
import pickle
from fractions import Fraction
from typing import Any

import pytest

from healrt import taint

LABEL = taint.new_label(7, {"location": "name:x", "file": "f.py", "line": 3})


def labelled(value: Any) -> Any:
    wrapped = taint.wrap(value, LABEL)
    assert wrapped is not None and taint.label_of(wrapped) is LABEL
    return wrapped


def carries(value: Any) -> bool:
    label = taint.label_of(value)
    return label is not None and taint.heals_of(label) == frozenset({7})


SAMPLES = ["a/b.txt", b"raw\x00bytes", 42, -3, 2.5, ("a", 1, None)]


@pytest.mark.parametrize("value", SAMPLES, ids=repr)
def test_wrappers_look_and_compare_like_their_base(value: Any) -> None:
    wrapped = labelled(value)
    assert wrapped == value and hash(wrapped) == hash(value) and not (wrapped != value)
    assert repr(wrapped) == repr(value) and str(wrapped) == str(value)
    assert type(str(wrapped)) is str and type(repr(wrapped)) is str  # exact: pathlib and C code need it
    assert type(wrapped).__name__ == type(value).__name__ and isinstance(wrapped, type(value))
    assert repr(type(wrapped)) == repr(type(value))
    assert json.dumps(wrapped) == json.dumps(value) if not isinstance(value, bytes) else True
    assert pickle.loads(pickle.dumps(wrapped)) == value
    assert type(pickle.loads(pickle.dumps(wrapped))) is type(value)  # no healrt class in a pickle
    assert copy.copy(wrapped) is wrapped and copy.deepcopy(wrapped) is wrapped
    assert {wrapped: 1}[value] == 1
    assert bool(wrapped) == bool(value)


def test_plain_types_cannot_carry_labels_but_wrappers_are_relabelled() -> None:
    for value in (True, None, [1], {"a": 1}, object(), 1j):
        assert taint.wrap(value, LABEL) is None
    other = taint.new_label(8, {"location": "name:y"})
    both = taint.wrap(labelled("s"), other)
    assert taint.heals_of(taint.label_of(both)) == frozenset({7, 8})
    assert taint.wrap(labelled("s"), LABEL) is not None


def test_strings_carry_the_label_through_their_operations() -> None:
    s = labelled("Path/To")
    for result in (s + "x", "x" + s, s * 2, 2 * s, s[1:], s[0], s.upper(), s.lower(), s.replace("T", "t"),
                   s.strip(), s.zfill(9), s.center(9), s.format(), s.removeprefix("P"), s.translate({80: 81}),
                   s.title(), "%s!" % s, format(s, ">10"), s.join(["a", "b"]), s.casefold(), s.swapcase(), s.ljust(9)):
        assert carries(result), result
    assert all(carries(part) for part in s.split("/"))
    assert all(carries(part) for part in s.partition("/"))
    assert all(carries(char) for char in s)
    assert carries(s.encode()) and carries(s.encode().decode())
    first, _, last = s.partition("/")
    assert carries(first) and carries(last)
    # Inputs to methods of a plain string are labelled through the formatting rewrite (taintops),
    # except where the wrapper's reflected operation runs first (a subclass on the right).
    assert not carries("-".join([s, "x"])) and carries("x" + s)
    assert s.startswith("P") is True and ("To" in s) is True and len(s) == 7  # plain results
    assert type(s.startswith("P")) is bool


def test_numbers_carry_the_label_through_arithmetic() -> None:
    n, f = labelled(6), labelled(1.5)
    for result in (n + 1, 1 + n, n - 1, 10 - n, n * 2, 2 * n, n / 4, 12 / n, n // 4, n % 4, 20 % n, n ** 2,
                   2 ** n, -n, abs(-n), +n, ~n, n << 1, n >> 1, n & 3, n | 1, n ^ 1, round(f), round(f, 1),
                   math.floor(f), math.ceil(f), math.trunc(f), n + f, f + n, f * 2, 3 - f, divmod(n, 4)[0],
                   n.to_bytes(2, "big"), n + True, sum([n, 1])):
        assert carries(result), result
    assert taint.find_label(n + Fraction(1, 2)) is not None  # not wrappable: an object label
    assert int(n) == 6 and type(int(n)) is int and type(float(f)) is float  # exact, as the interpreter requires
    assert [1, 2, 3][labelled(1)] == 2 and range(labelled(2)) == range(2)
    assert format(n, "03d") == "006" and carries(format(n, "03d"))
    # float's own arithmetic accepts int subclasses without consulting them: a documented gap.
    assert not carries(0.5 + n)


def test_tuples_label_their_items_on_the_way_out() -> None:
    t = labelled(("a", 1, [2]))
    first, second, third = t
    assert carries(first) and carries(second) and third == [2]
    assert carries(t[0]) and carries(t[1:]) and carries(t + (1,)) and carries((1,) + t) and carries(t * 2)
    assert all(carries(item) for item in list(t)[:2])
    assert (lambda *args: args)(*t)[0] == "a"


def test_wrapper_types_are_sealed() -> None:
    s = labelled("x")
    with pytest.raises(TypeError):
        type(s).upper = str.lower  # type: ignore[method-assign]
    with pytest.raises(TypeError):
        del type(s).upper
    with pytest.raises(TypeError):
        setattr(type(labelled(1)), "__add__", int.__add__)
    assert carries(s.upper())


def test_labels_are_opaque() -> None:
    assert repr(LABEL) == format(LABEL, "") == "<healrt label>"
    for name in ("heals", "source", "steps", "__class__", "__dict__"):
        with pytest.raises(AttributeError):
            getattr(LABEL, name)
    with pytest.raises((TypeError, copy.Error)):
        copy.copy(LABEL)
    text = "{0.__dict__}".format(labelled("x"))  # formatting can walk dunders, as text only
    assert "name:x" not in text and "7" not in text


def test_flow_records_the_source_and_each_step() -> None:
    s = labelled("a")
    result = (s + "b").upper()[0:1]
    flow = taint.flow_of(taint.label_of(result))
    assert flow[0] == {"location": "name:x", "file": "f.py", "line": 3, "heal_point": 7, "kind": "source"}
    assert [step["op"] for step in flow[1:]] == ["+", "upper", "[]"]
    assert all(step["file"] == __file__ for step in flow[1:])


def test_long_flows_keep_their_start_and_end() -> None:
    s = labelled("a")
    for _ in range(50):
        s = s + "b"
    flow = taint.flow_of(taint.label_of(s))
    assert len(flow) == 1 + taint.STEP_CAP
    assert flow[taint.STEP_CAP // 2 + 1] == {"kind": "elided", "steps": 50 - taint.STEP_CAP + 1}


def test_find_label_looks_inside_containers_objects_exceptions_and_paths() -> None:
    class Holder:
        def __init__(self, value: Any) -> None:
            self.value = value

        @property
        def explode(self) -> Any:
            raise AssertionError("no program code runs during a scan")

    class Slotted:
        __slots__ = ("inner",)

        def __init__(self, inner: Any) -> None:
            self.inner = inner

    s = labelled("secret")
    for container in ([1, [2, s]], {"k": (s,)}, {s: 1}, {s}, frozenset({s}), Holder(s), Slotted(s),
                      ValueError("x", s), Holder(Holder([s]))):
        assert taint.find_label(container) is LABEL, container
    assert taint.find_label([[[[[s]]]]]) is None  # beyond the depth bound
    assert taint.find_label(["plain", 1, None, Holder("x")]) is None
    path = pathlib.Path("/tmp/plain")
    assert taint.find_label(path) is None
    taint.label_object(path, LABEL)
    assert taint.find_label(path) is LABEL and taint.find_label([path]) is LABEL
    assert taint.find_label(pathlib.Path("/tmp/plain")) is None  # by identity, not equality


def test_location_and_name_labels() -> None:
    class Config:
        pass

    config, other = Config(), Config()
    taint.label_location(config, ("attr", "path"), LABEL)
    assert taint.location_label(config, ("attr", "path")) is LABEL
    assert taint.location_label(config, ("attr", "mode")) is None and taint.location_label(config) is LABEL
    assert taint.location_label(other) is None
    assert taint.find_label(config) is LABEL and taint.find_label([config]) is LABEL
    namespace: dict[str, Any] = {}
    taint.label_name(namespace, "LIMIT", LABEL)
    assert taint.name_label(namespace, "LIMIT") is LABEL and taint.name_label({}, "LIMIT") is None


def test_wrapped_values_work_where_the_program_uses_them(tmp_path: pathlib.Path) -> None:
    name = labelled(str(tmp_path / "file.txt"))
    with open(name, "w") as handle:
        handle.write(labelled("text"))
    assert pathlib.Path(name).read_text() == "text" and os.path.exists(name)
    assert str(pathlib.Path(name)) == str(tmp_path / "file.txt")
    assert os.path.join(name, "x").endswith("x") and carries(os.path.join(name, "x"))
    assert carries(os.path.dirname(name)) and carries(os.path.basename(name))
    assert json.loads(json.dumps({"k": labelled(3)})) == {"k": 3}
    assert "{:>5}".format(labelled(2)) == "    2"
