"""The local HealCore re-check, in isolation."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from healrt import healcheck
from healrt.healcheck import HealRejected, check_heal

ALLOWED = [
    "x = items[0] if items else None",
    "import math\nvalue = math.floor(3.5)",
    "from collections import OrderedDict\nd = OrderedDict()",
    "result = [v * 2 for v in values]",
    "obj.name = 'fixed'",
    "import array\nbuf = array.array('i', [1, 2])",
    # reflective calls with a literal, non-dunder, non-forbidden attribute name (as the gate allows)
    "v = getattr(obj, 'x')",
    "v = getattr(obj, 'name', None)\nif hasattr(obj, 'y'):\n    setattr(obj, 'value', 0)",
    "import operator\nfirst = operator.attrgetter('a.b', 'c')(x)",
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
    "v = getattr(obj, name)",
    "v = getattr(obj, '__class__')",
    "v = getattr(obj, '_healrt_rt')",
    "v = getattr(mod, 'sys')",
    "v = getattr(*args)",
    "g = getattr",
    "import operator\nf = operator.attrgetter('a.__class__')(x)",
    "from . import thing",
    "from math import *",
    "import os as sys",
    "m = sys.modules",
    "f = frame.f_globals",
    "from typing import get_type_hints",
    "x = input()",
    "b = builtins",
    "return 1",
    "with open('f') as fh:\n    pass",
    "try:\n    pass\nexcept ValueError as _healrt_e:\n    pass",
    "async def f():\n    pass",
    "global x",
]


def test_every_excluded_keyword_is_mapped_to_ast_nodes() -> None:
    policy = json.loads((Path(healcheck.__file__).parent / "healcore_policy.json").read_text(encoding="utf-8"))
    assert set(policy["excluded_keywords"]) <= set(healcheck._KEYWORD_NODES)
    assert {reason for _, reason in healcheck.EXCLUDED_NODES.values()} >= set(policy["excluded_keywords"].values())


@pytest.mark.parametrize("code", ALLOWED)
def test_allowed(code: str) -> None:
    check_heal(ast.parse(code))


@pytest.mark.parametrize("code", FORBIDDEN)
def test_forbidden(code: str) -> None:
    with pytest.raises(HealRejected):
        check_heal(ast.parse(code))
