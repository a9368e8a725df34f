"""Per-block hit counting gives exactly the per-statement counts (checked against a counter per statement)."""

from __future__ import annotations

import ast
import types
from typing import Any

from healrt.rewrite import PROPAGATE, _Rewriter, _Scope, rewrite_module
from healrt.sites import REWRITE_FORMAT, SiteTable

SOURCE = '''\
import contextlib


def caught_mid_block(n):
    out = []
    for i in range(n):
        try:
            a = i
            b = 10 // (i % 3)
            out.append(b)
            pass
            c = a + b
        except ZeroDivisionError:
            d = -1
            out.append(d)
    return out


def raises_mid_block(x):
    y = x + 1
    z = int("nope") if x > 2 else x
    w = y + z
    return w


def caller(n):
    total = 0
    for i in range(n):
        try:
            total += raises_mid_block(i)
        except ValueError:
            total -= 1
            continue
        total += 100
        if total > 250:
            break
        total += 1
    return total


def gen(n):
    for i in range(n):
        before = i
        yield before
        after = i
        yield after
        last = i


def suppressed(n):
    seen = 0
    for i in range(n):
        with contextlib.suppress(KeyError):
            seen += 1
            {}[i]
            seen += 1000
        seen += 10
    return seen


def dead_code_after_raise(flag):
    if flag:
        value = 1
        raise RuntimeError("stop")
        value = 2
    return 0


def nested(n):
    def inner(k):
        r = k * 2
        return r
    acc = [inner(i) for i in range(n)]
    acc2 = 0
    return acc, acc2


def branches(values):
    out = []
    for v in values:
        x = v
        if v > 2:
            out.append("big")
            continue
        elif v == 1:
            pass
        else:
            y = v
        try:
            if 10 // v > 3:
                z = 1
        except ZeroDivisionError:
            z = 2
        w = x
    return out


def gen_if(n):
    for i in range(n):
        first = i
        if (yield first):
            second = i
        third = i


def workload():
    caught_mid_block(7)
    caller(6)
    g = gen(3)
    next(g)
    next(g)
    next(g)
    g.close()  # GeneratorExit at a yield in the middle of the loop body
    list(gen(2))
    suppressed(3)
    for flag in (True, False):
        try:
            dead_code_after_raise(flag)
        except RuntimeError:
            pass
    nested(4)
    branches([0, 1, 2, 3, 5])
    g = gen_if(3)
    next(g)
    g.send(True)
    g.close()  # GeneratorExit inside an if test
'''


class _EveryStatement(_Rewriter):
    """The oracle: every wrapped statement is its own block, so it has its own counter."""

    def _simple(self, *args: Any) -> list[ast.stmt]:
        rewritten = super()._simple(*args)
        self._end_block()
        return rewritten


class _Hooks:
    def __init__(self, table: SiteTable) -> None:
        self._table = table

    def handle(self, site_id: int) -> int:
        self._table.left_block(site_id)  # as Runtime.handle does when it propagates
        return PROPAGATE

    def return_value(self) -> Any:
        raise AssertionError("never asked")


def _run(tree: ast.Module, table: SiteTable) -> list[int]:
    """Runs the workload; returns the counters the code bumped (the module's sites start at id 0)."""
    module = types.ModuleType("counted")
    counters = table.module_counters(0)
    module.__dict__.update(_healrt_rt=_Hooks(table), _healrt_hits=counters)
    exec(compile(tree, "/virtual/counted.py", "exec", dont_inherit=True), module.__dict__)
    module.workload()
    return counters


def test_block_counts_equal_per_statement_counts() -> None:
    blocks = SiteTable()
    bumped = _run(rewrite_module(ast.parse(SOURCE), "/virtual/counted.py", SOURCE, blocks), blocks)

    oracle = SiteTable()
    oracle.add_file("/virtual/counted.py", SOURCE)
    tree = ast.parse(SOURCE)
    tree.body = _EveryStatement("/virtual/counted.py", SOURCE, oracle).body(
        tree.body, _Scope(None, None, False, False), (), qual_prefix="")
    bumped_by_oracle = _run(ast.fix_missing_locations(tree), oracle)

    assert [s.source for s in blocks.sites] == [s.source for s in oracle.sites]
    expected = {site.source: count for site, count in zip(oracle.sites, oracle.counts())}
    got = {site.source: count for site, count in zip(blocks.sites, blocks.counts())}
    assert got == expected
    # The workload does exercise the corrections, and blocks do save counters.
    assert expected["c = a + b"] < expected["a = i"]
    assert expected["after = i"] < expected["before = i"]
    assert expected["value = 2"] == 0
    assert (expected["10 // v > 3"], expected["z = 1"], expected["z = 2"], expected["w = x"]) == (3, 2, 1, 3)
    assert (expected["yield first"], expected["second = i"], expected["third = i"]) == (2, 1, 1)
    assert sum(1 for hits in bumped if hits) < sum(1 for hits in bumped_by_oracle if hits)


def test_selection_wraps_only_the_selected_statements() -> None:
    line = next(n for n, text in enumerate(SOURCE.splitlines(), start=1) if "w = y + z" in text)
    table = SiteTable({"/virtual/counted.py": frozenset({(line, 4)})})
    tree = rewrite_module(ast.parse(SOURCE), "/virtual/counted.py", SOURCE, table)
    assert [site.source for site in table.sites] == ["w = y + z"]
    assert table.rewrite_key("/virtual/counted.py") == f"v{REWRITE_FORMAT}:{line}.4"
    _run(tree, table)
    assert table.counts() == [3]
