"""The formatting rewrite (fmtrewrite.py): program semantics unchanged, labels kept."""

from __future__ import annotations

import ast
import asyncio
import pathlib
import traceback
import types
from typing import Any

import pytest

from healrt import codecache, taint, taintops
from healrt.fmtrewrite import FLAG, OPS, Check, FormatRewriter

CORPUS = '''\
import os
import json
from pathlib import Path

LOG = []


def note(value):
    LOG.append(value)
    return value


class Point:
    x: int = 1

    def __init__(self):
        self.__secret = "s"

    def __format__(self, spec):
        return "P" + spec

    def secret(self):
        return f"{self.__secret}"

    def __repr__(self):
        return "Point()"


class Child(Point):
    def secret(self):
        return "%s!" % super().secret()


def fstrings(a, b):
    width = 6
    return [f"{a}", f"<{a}>", f"{a!r:>{width}}", f"{b:.2f}", f"{a=}", f"{f'{a}'}", f"{Point():xy}",
            f"{note(a)}{note(b)}", f"{a!s}{a!a}", f"{{}}", f"{b:{'>' + str(width)}}"]


def percent(a, b):
    return ["%s-%r" % (a, b), "%(k)s" % {"k": a}, b"%s" % b"x", 7 % 3, "%d%%" % 5, 2.5 % 1]


def calls(a, parts):
    return [str(a), repr(a), str(), int("12"), float("1.5"), bytes("x", "utf-8"), format(3, "02d"),
            "-".join(parts), "-".join(p for p in parts), "{}/{}".format(a, 1), "{k}".format_map({"k": a}),
            os.path.join("x", a), json.dumps({"a": a}), ascii("é"), str(Path("/t") / a), a.replace("a", "b")]


def items(data, key):
    row = [[1, 2], [3, 4]]
    return [data[key], row[1][0], data.get(key), {"k": 1}["k"], (1, 2)[-1], row[0][:1], "abc"[1]]


def stores(data):
    data["new"] = 1
    data["new"] += 1
    row = [[0]]
    row[0][0] = 5
    del data["new"]
    return data, row


def order():
    return f"{note(1)}{note(2)}" + "%s%s" % (note(3), note(4)) + "{}{}".format(note(5), note(6)) + str(note(7))


def walrus(values):
    return [f"{(y := v)}" for v in values if str(v)], y if values else None


def errors(kind):
    if kind == "key":
        return {}["missing"]
    if kind == "format":
        return f"{1:z}"
    if kind == "percent":
        return "%d" % "x"
    if kind == "call":
        return int("x")
    return "ok"


def annotated(x: "list[int]" = None) -> "dict[str, int]":
    y: list[int] = []
    return y


def generator(n):
    for i in range(n):
        yield f"{i}"


async def coroutine(n):
    return f"{n}" + str(await _value(n))


async def _value(n):
    return n


def lambda_default(f=lambda v: f"<{v}>"):
    return f("x")


def class_body():
    class Inner:
        NAME = f"{1}-{'two'}"
        ITEM = {"a": 1}["a"]
    return Inner.NAME, Inner.ITEM


def check_read():
    if STRICT:
        return "strict"
    return "lenient"


STRICT = False
'''


def compile_corpus(rewrite: bool, flag: bool, checks: tuple[Check, ...] = ()) -> dict[str, Any]:
    tree = ast.parse(CORPUS)
    if rewrite:
        tree = ast.fix_missing_locations(FormatRewriter(checks).transform(tree, "corpus"))
    namespace: dict[str, Any] = {"__name__": "corpus", OPS: taintops, FLAG: flag}
    exec(compile(tree, "corpus.py", "exec"), namespace)
    return namespace


def run_all(namespace: dict[str, Any]) -> list[Any]:
    results: list[Any] = []
    for call in (
        lambda: namespace["fstrings"]("a", 2.5), lambda: namespace["percent"]("a", "b"),
        lambda: namespace["calls"]("a", ["p", "q"]), lambda: namespace["items"]({"k": 1}, "k"),
        lambda: namespace["stores"]({}), lambda: namespace["order"](), lambda: namespace["walrus"]([1, 2]),
        lambda: list(namespace["generator"](3)), lambda: asyncio.run(namespace["coroutine"](4)),
        lambda: namespace["lambda_default"](), lambda: namespace["class_body"](), lambda: namespace["check_read"](),
        lambda: namespace["Point"]().secret(), lambda: namespace["Child"]().secret(),
        lambda: namespace["annotated"].__annotations__, lambda: namespace["Point"].__annotations__,
    ):
        results.append(call())
    for kind in ("key", "format", "percent", "call", "none"):
        try:
            results.append(namespace["errors"](kind))
        except Exception as error:
            results.append((type(error).__name__, str(error)))
    results.append(list(namespace["LOG"]))
    return results


def test_rewritten_code_behaves_as_written_with_the_switch_off_and_on() -> None:
    expected = run_all(compile_corpus(rewrite=False, flag=False))
    assert run_all(compile_corpus(rewrite=True, flag=False)) == expected
    checks = (Check("STRICT", None),)
    assert run_all(compile_corpus(rewrite=True, flag=True, checks=checks)) == expected


def test_the_original_expression_runs_until_the_switch_is_on() -> None:
    tree = FormatRewriter().transform(ast.parse('x = f"{a}-{b}"\ny = d[k]\nz = str(a)'), "m")
    for statement in tree.body:
        value = statement.value
        assert isinstance(value, ast.IfExp) and isinstance(value.test, ast.Name) and value.test.id == FLAG
    assert ast.unparse(tree.body[0].value.orelse) == "f'{a}-{b}'"
    assert ast.unparse(tree.body[0].value.body) == "_healrt_t.fstr(_healrt_t.fv(a, -1, ''), '-', _healrt_t.fv(b, -1, ''))"


def test_only_loads_outside_annotations_and_slices_are_rewritten() -> None:
    source = "def f(x: list[int]) -> dict[str, int]:\n    y: list[int] = x[1:2]\n    x[0] = 1\n    del x[0]\n    return y"
    tree = FormatRewriter().transform(ast.parse(source), "m")
    assert ast.unparse(tree) == ast.unparse(ast.parse(source))


def test_tracebacks_point_at_the_original_lines() -> None:
    lines = CORPUS.splitlines()
    for kind, fragment in (("key", '{}["missing"]'), ("format", 'f"{1:z}"'), ("call", 'int("x")')):
        namespace = compile_corpus(rewrite=True, flag=True)
        with pytest.raises(Exception) as caught:
            namespace["errors"](kind)
        corpus_frames = [f for f in traceback.extract_tb(caught.value.__traceback__) if f.filename == "corpus.py"]
        line = corpus_frames[-1].lineno
        assert fragment in lines[line - 1], (kind, line)


def _labelled(value: Any) -> Any:
    return taint.wrap(value, taint.new_label(3, {"location": "name:a"}))


def _heals(value: Any) -> frozenset[int]:
    label = taint.find_label(value)
    return frozenset() if label is None else taint.heals_of(label)


def test_labels_survive_every_rewritten_formatting() -> None:
    namespace = compile_corpus(rewrite=True, flag=True)
    a = _labelled("a")
    results = namespace["fstrings"](a, 2.5)
    assert [bool(_heals(r)) for r in results] == [True, True, True, False, True, True, False, True, True, False, False]
    percent = namespace["percent"](a, "b")
    assert _heals(percent[0]) and _heals(percent[1]) and not _heals(percent[2])
    calls = namespace["calls"](a, ["p", _labelled("q")])
    # Unlabelled: calls without labelled inputs. `str(Path("/t") / a)` is left out: pathlib's operators
    # are patched only when the guard is armed (not in this process; test_taint_flows covers paths).
    plain = (2, 3, 4, 5, 6, 13)
    assert all(_heals(result) for index, result in enumerate(calls) if index not in (*plain, 14)), calls
    assert not any(_heals(calls[index]) for index in plain)
    assert _heals(namespace["items"]({1: "x"}, _labelled(1))[0])  # an item chosen by a labelled key
    number = namespace["calls"](_labelled("7"), [])
    assert _heals(int(number[0])) == frozenset() and _heals(number[0])
    parsed = compile_corpus(rewrite=True, flag=True)
    exec(compile(ast.fix_missing_locations(FormatRewriter().transform(ast.parse("r = int(v)"), "m")), "m", "exec"),
         parsed | {"v": _labelled("12")}, scope := {})
    assert scope["r"] == 12 and _heals(scope["r"])


def test_join_consumes_a_generator_once() -> None:
    namespace = compile_corpus(rewrite=True, flag=True)
    source = "def g(parts):\n    return '-'.join(p for p in parts)"
    exec(compile(ast.fix_missing_locations(FormatRewriter().transform(ast.parse(source), "m")), "m", "exec"), namespace)
    joined = namespace["g"](["x", _labelled("y")])
    assert joined == "x-y" and _heals(joined)


def test_paths_built_from_labelled_parts_are_labelled() -> None:
    namespace = compile_corpus(rewrite=True, flag=True)
    source = "from pathlib import Path\ndef p(a):\n    return Path(a)"
    exec(compile(ast.fix_missing_locations(FormatRewriter().transform(ast.parse(source), "m")), "m", "exec"), namespace)
    path = namespace["p"](_labelled("/tmp/x"))
    assert isinstance(path, pathlib.Path) and _heals(path) and str(path) == "/tmp/x" and type(str(path)) is str


def test_declared_checks_are_rewritten_only_in_branch_tests_of_their_module() -> None:
    source = "if STRICT:\n    x = STRICT\nwhile mod.FLAG and y:\n    pass\nz = [v for v in w if STRICT]\nassert not mod.FLAG"
    checks = (Check("STRICT", "m"), Check("mod.FLAG", None))
    tree = FormatRewriter(checks).transform(ast.parse(source), "m")
    text = ast.unparse(tree)
    assert text.count("_healrt_t.cond(0, STRICT, 'STRICT')") == 2 and "x = STRICT" in text
    assert text.count("_healrt_t.cond_attr(1, mod, 'FLAG')") == 2
    other = ast.unparse(FormatRewriter(checks).transform(ast.parse(source), "other"))
    assert "cond(0" not in other and "cond_attr(1" in other


def test_the_cache_key_follows_the_rewrite(monkeypatch: pytest.MonkeyPatch) -> None:
    assert FormatRewriter().key != FormatRewriter((Check("A", None),)).key
    assert FormatRewriter((Check("A", None),)).key == FormatRewriter((Check("A", None),)).key
    # The rewriter's own source is part of every compiled-code cache key.
    assert codecache._rewriter_version() == codecache._REWRITER
    read_bytes = pathlib.Path.read_bytes

    def edited(path: pathlib.Path) -> bytes:
        return read_bytes(path) + (b"# edited" if path.name == "fmtrewrite.py" else b"")

    monkeypatch.setattr(pathlib.Path, "read_bytes", edited)
    assert codecache._rewriter_version() != codecache._REWRITER


def test_async_and_generators_keep_working() -> None:
    namespace = compile_corpus(rewrite=True, flag=True)
    assert list(namespace["generator"](2)) == ["0", "1"]
    assert asyncio.run(namespace["coroutine"](_labelled(5))) == "55"
    assert isinstance(namespace["generator"](1), types.GeneratorType)
