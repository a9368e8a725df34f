"""HealCore by value (healvalues.py): names, attributes and callees of a heal are judged by what
they are in the paused program, whatever they are called there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from helpers import Controller, run_healrt, write_project, write_spec

# The crashing module keeps refused things under innocent names, as real modules do (argparse
# keeps sys as _sys); the heal text never names sys, socket, getattr or os._exit.
MODULE = '''\
import os as os_alias
import socket as netmod
import sys as runtime_mod

ga = getattr
bye = os_alias._exit
meta = type


def total(items):
    acc = 0
    for item in items:
        acc += item
    return acc
'''

TARGET = '''\
import valmod


def test_total():
    assert valmod.total([1, "2", 3]) == 6
'''

REFUSED_BY_VALUE = {
    "module under another name": ("p = runtime_mod.path", "name 'runtime_mod' (line 1) is the module 'sys'"),
    "module as an attribute": ("import re\nm = re.copyreg", "attribute 'copyreg' is the module 'copyreg'"),
    "module by value through an allowed one": ("h = netmod.gethostname()", "name 'netmod' (line 1) is the module 'socket'"),
    "getattr under another name": ("c = ga(item, '__class__')", "getattr(..., '__class__') is refused"),
    "os._exit under another name": ("bye(0)", "name 'bye' (line 1) is refused: os._exit ends the healed process"),
    "metaclass from an expression": ("k = type(int)\nC = k('X', (), {})", "calling the metaclass 'type' with 3 argument(s)"),
    "metaclass under another name": ("C = meta('X', (), {})", "calling the metaclass 'type' with 3 argument(s)"),
}


@pytest.fixture(scope="module")
def healed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Controller, dict[str, dict[str, Any]]]:
    directory = tmp_path_factory.mktemp("values")
    source_dir, target = write_project(directory, "valmod", MODULE, TARGET)
    results: dict[str, dict[str, Any]] = {}

    def on_crash(ctl: Controller, context: dict[str, Any]) -> None:
        for key, (code, _) in REFUSED_BY_VALUE.items():
            results[key] = ctl.heal(code)
        results["allowed"] = ctl.heal("import os\njoined = os_alias.path.join('a', 'b')\nkind = type(item)\n"
                                      "item = int(item)", resume="retry")
        assert results["allowed"]["ok"], results["allowed"]

    spec = write_spec(directory, source_dir=str(source_dir), project_modules=["valmod"],
                      pytest_args=[f"{target}::test_total", "-q", "-p", "no:cacheprovider"])
    ctl = Controller(on_crash)
    run = run_healrt(spec, ctl)
    assert ctl.outcome["passed"] is True, run.stdout + run.stderr
    return ctl, results


@pytest.mark.parametrize("key", [key for key, (_, message) in REFUSED_BY_VALUE.items() if message])
def test_a_refused_value_is_refused_whatever_its_name(healed: tuple[Controller, dict[str, dict[str, Any]]],
                                                      key: str) -> None:
    _, results = healed
    result = results[key]
    assert result["ok"] is False and result["error"]["reason"] == "forbidden", result
    assert REFUSED_BY_VALUE[key][1] in result["error"]["message"], result["error"]["message"]


def test_the_refusals_count_as_rejected_heals_and_the_allowed_heal_applies(
        healed: tuple[Controller, dict[str, dict[str, Any]]]) -> None:
    ctl, results = healed
    rejected = sum(1 for key in REFUSED_BY_VALUE if results[key]["error"] and results[key]["error"]["reason"] == "forbidden")
    assert ctl.outcome["heals_rejected"] == rejected
    assert ctl.outcome["heals_applied"] == 1 and results["allowed"]["changed"]
