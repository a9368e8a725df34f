"""The local HealCore re-check, in isolation."""

from __future__ import annotations

import ast

import pytest

from healrt.healcheck import HealRejected, check_heal

ALLOWED = [
    "x = items[0] if items else None",
    "import math\nvalue = math.floor(3.5)",
    "from collections import OrderedDict\nd = OrderedDict()",
    "result = [v * 2 for v in values]",
    "obj.name = 'fixed'",
]
FORBIDDEN = [
    "exec('x = 1')",
    "eval('1')",
    "f = compile('1', 's', 'eval')",
    "m = __import__('os')",
    "import subprocess",
    "from sys import modules",
    "import importlib",
    "g = globals()",
    "f = lambda: 1",
    "def f():\n    pass",
    "class C:\n    pass",
    "g = (v for v in values)",
    "c = obj.__class__",
    "b = __builtins__",
    "r = _healrt_rt",
    "h = module._healrt_rt",
    "v = getattr(obj, 'x')",
    "from . import thing",
]


@pytest.mark.parametrize("code", ALLOWED)
def test_allowed(code: str) -> None:
    check_heal(ast.parse(code))


@pytest.mark.parametrize("code", FORBIDDEN)
def test_forbidden(code: str) -> None:
    with pytest.raises(HealRejected):
        check_heal(ast.parse(code))
