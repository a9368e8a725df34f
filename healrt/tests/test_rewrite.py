"""The statement rewriter keeps program semantics when nothing is healed."""

from __future__ import annotations

import ast
import asyncio
import types
from typing import Any

from healrt.rewrite import PROPAGATE, rewrite_module
from healrt.sites import SiteTable

SOURCE = '''\
"""Module doc."""
from __future__ import annotations

import enum


class Color(enum.Enum):
    RED = 1
    GREEN = 2


def gen(n):
    for i in range(n):
        yield i
    return "done"


async def coro(x):
    return x * 2


async def agen():
    yield 1


def documented():
    """Function doc."""
    return 1


def caught():
    try:
        return int("x")
    except ValueError:
        return -1


class Point:
    x: int = 0

    def __init__(self):
        self.__secret = 1

    def secret(self):
        return self.__secret
'''


class PropagateAll:
    def __init__(self) -> None:
        self.handle_calls: list[int] = []

    def handle(self, site_id: int) -> int:
        self.handle_calls.append(site_id)
        return PROPAGATE

    def return_value(self) -> Any:
        raise AssertionError("never asked")


def load() -> tuple[types.ModuleType, SiteTable, PropagateAll]:
    table = SiteTable()
    tree = rewrite_module(ast.parse(SOURCE), "/virtual/mod.py", SOURCE, table)
    module = types.ModuleType("mod")
    hooks = PropagateAll()
    module.__dict__.update(_healrt_rt=hooks, _healrt_hits=table.module_counters(0))
    exec(compile(tree, "/virtual/mod.py", "exec", dont_inherit=True), module.__dict__)
    return module, table, hooks


def test_semantics_are_kept() -> None:
    module, table, hooks = load()
    assert module.__doc__ == "Module doc." and module.documented.__doc__ == "Function doc."
    assert [c.name for c in module.Color] == ["RED", "GREEN"]
    generator = module.gen(2)
    assert [next(generator), next(generator)] == [0, 1]
    try:
        next(generator)
    except StopIteration as stop:
        assert stop.value == "done"
    assert asyncio.run(module.coro(2)) == 4
    assert module.caught() == -1
    assert module.Point().secret() == 1
    assert not [name for name in (*vars(module.Color), *vars(module.Point)) if name.startswith("_healrt")]
    assert hooks.handle_calls  # the ValueError in caught() reached the runtime
    assert module.Point.__annotations__ == {"x": "int"}


def test_site_table_and_hits() -> None:
    module, table, _ = load()
    by_source = {site.source: site for site in table.sites}
    site = by_source['return int("x")']
    assert (site.kind, site.function, site.can_return) == ("return", "caught", True)
    assert site.guards[0].kind == "try" and site.guards[0].handlers == ("ValueError",)
    assert by_source["RED = 1"].function is None and by_source["RED = 1"].can_return is False
    assert by_source["yield 1"].can_return is False  # async generator: no `return value`
    assert by_source["self.__secret = 1"].function == "Point.__init__"
    assert table.counts()[site.id] == 0
    module.caught()
    module.caught()
    assert table.counts()[site.id] == 2
