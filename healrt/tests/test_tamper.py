"""Heal code cannot read or change the guard's labels, policy or records (docs/control-protocol.md,
"HealGuard: the dynamic stage").

Three layers are tested:
1. healrt's own HealCore re-check refuses every route to them it can see: attributes of wrapped
   values, `sys.modules`, gc, frames and tracebacks, the builtins (also under other names, e.g.
   `enum.bltns`), code objects, type internals, `vars()`/`globals()`, the runtime's hidden names.
2. End to end, where the re-check lets a heal through (`type(x).mro()`, formatting that walks
   dunders as text, setattr on a wrapper type, replacing a guard wrapper, writing to the control
   socket), a labelled value stays labelled and its protected operation is still blocked.
3. A reachability audit in an armed process: from the heal namespace and the allowlisted modules,
   following every attribute and item heal code may name, no guard state object is reachable.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from healrt.healcheck import HealRejected, check_heal
from helpers import HEALRT_ROOT, RUN_TIMEOUT, Controller
from taint_project import FLOWS, Run, run_flows

REFUSED = {
    "attributes of wrapped values": [
        "d = name.__dict__", "label = getattr(name, '__healrt__')", "setattr(name, '__healrt__', None)",
        "delattr(name, '__healrt__')", "d = vars(name)", "d = object.__getattribute__(name, '__dict__')",
        "c = name.__class__", "import operator\nget = operator.attrgetter('__dict__')",
        "import operator\nf = operator.methodcaller('__reduce_ex__', 2)", "f = getattr(name, attr)",
    ],
    "sys.modules": [
        "import sys\nm = sys.modules['healrt.vault']", "import os\nm = os.sys.modules", "import typing\nm = typing.sys",
        "import collections\nm = collections._sys.modules", "import importlib", "m = __import__('healrt')",
        "import healrt", "from healrt import vault",
    ],
    "gc": ["import gc\nobjects = gc.get_objects()", "import gc\nr = gc.get_referrers(name)",
           "import enum\ngc = enum.bltns.__import__('gc')"],
    "frames": [
        "import sys\nf = sys._getframe()", "import inspect\nf = inspect.currentframe()", "import traceback",
        "try:\n    1 / 0\nexcept ZeroDivisionError as error:\n    tb = error.__traceback__",
        "f = tb.tb_frame", "n = tb.tb_next", "f = generator.gi_frame", "f = coroutine.cr_frame", "v = frame.f_locals",
        "g = frame.f_globals", "b = frame.f_back", "c = generator.gi_code", "c = coroutine.cr_code",
    ],
    "builtins": [
        "b = __builtins__", "import builtins", "b = builtins", "import enum\nb = enum.bltns",
        "import enum\nd = enum.bltns.vars(enum)", "import enum\nc = enum.bltns.compile('x', 'y', 'eval')",
        "g = globals()", "l = locals()", "eval('1')", "exec('x = 1')", "c = compile('1', 's', 'eval')",
        "import typing\nf = typing.types.FunctionType", "import typing\nt = typing._eval_type(typing.List['int'], {}, {})",
        "import typing\nc = typing.warnings._getcategory('gc.x')",
    ],
    "type internals": [
        "s = type(name).__subclasses__()", "m = type(name).__mro__", "d = type(name).__dict__",
        "type(name).__setattr__(type(name), 'upper', None)",
    ],
    "format strings": [
        "leaks = '{0.__dict__}'.format(name)", "leaks = '{0.__globals__[_healrt_t].state.__self__}'.format(make_name)",
        "leaks = '{0:{1.__class__}}'.format(name, name)", "leaks = '{n._healrt_t}'.format_map({'n': name})",
    ],
    "runtime names": [
        "t = _healrt_t", "r = _healrt_rt.handle", "h = _healrt_hits", "flows._healrt_taint = False",
        "t = getattr(flows, '_healrt_t')", "import operator\nt = operator.attrgetter('_healrt_t')(flows)",
        "from os import _healrt_x",
    ],
}


@pytest.mark.parametrize("code", [code for codes in REFUSED.values() for code in codes])
def test_the_recheck_refuses_every_route_to_runtime_state(code: str) -> None:
    with pytest.raises(HealRejected):
        check_heal(ast.parse(code))


# Heals the re-check accepts; each tries the guard's state another way (test 2).
ACCEPTED_ATTEMPTS = {
    "mro": "classes = type(name).mro()\nattempt = len(classes)",
    "sealed": "setattr(type(name), 'upper', str.lower)\nattempt = 1",
    "relabel": "import copy\nduplicate = copy.copy(name)\nattempt = 1",
    # The re-check cannot read a computed format string; the run-time check (healvalues.py) refuses it.
    "computed format": "template = '{0.' + '_' * 2 + 'dict' + '_' * 2 + '}'\nattempt = template.format(name)",
    "wrapper": "import pathlib\npathlib.Path.write_text = pathlib.Path.read_text\nattempt = 1",
    "control": (
        "import os\nrefused = []\nfor fd in range(3, 256):\n    try:\n"
        "        if os.fstat(fd).st_mode & 0o170000 == 0o140000:\n"
        "            os.write(fd, b'{\"type\": \"event\", \"kind\": \"forged\"}\\n')\n"
        "            os.close(fd)\n"
        "    except PermissionError:\n        refused.append(fd)\n    except OSError:\n        pass\n"
        "attempt = refused"),
}


@pytest.fixture(scope="module")
def tampered(tmp_path_factory: pytest.TempPathFactory) -> tuple[Run, dict[str, Any]]:
    """The tamper shape crashes once (heal 1 labels `name`), then once per round: each round probes
    what the previous attempt left, then sends the next attempt."""
    results: dict[str, Any] = {}
    attempts = list(ACCEPTED_ATTEMPTS.items())
    rounds: list[str] = []

    def on_crash(ctl: Controller, context: dict[str, Any]) -> None:
        if "tamper_attempt" not in context["statement"]["source"]:
            assert ctl.heal("name = 'tamper.out'")["ok"]
            return
        if not rounds:
            results["refused"] = [ctl.heal(code) for codes in REFUSED.values() for code in codes]
        else:
            results[rounds[-1] + ":probe"] = ctl.probe("attempt")
            results[rounds[-1] + ":label"] = ctl.probe("name.__dict__")
        if len(rounds) == len(attempts):
            assert ctl.heal("attempt = 0")["ok"]
            return
        key, code = attempts[len(rounds)]
        rounds.append(key)
        results[key] = ctl.heal(code)
        if not results[key]["ok"]:
            assert ctl.heal(f"attempt = {key!r}")["ok"]

    run = run_flows(tmp_path_factory.mktemp("tamper"), "enforce", order=["tamper"], on_crash=on_crash)
    assert rounds == list(ACCEPTED_ATTEMPTS)
    return run, results


def test_refused_heals_never_reach_the_runtime(tampered: tuple[Run, dict[str, Any]]) -> None:
    run, results = tampered
    assert all(r["ok"] is False and r["error"]["reason"] == "forbidden" for r in results["refused"])
    # ... and the one accepted attempt the run-time check refuses
    assert run.controller.outcome["heals_rejected"] == len(results["refused"]) + 1


def test_a_computed_format_string_cannot_walk_dunders(tampered: tuple[Run, dict[str, Any]]) -> None:
    _, results = tampered
    refused = results["computed format"]
    assert refused["ok"] is False and refused["error"]["reason"] == "forbidden", refused
    assert "format string '{0.__dict__}' is refused" in refused["error"]["message"], refused


def test_accepted_attempts_leave_the_label_in_place(tampered: tuple[Run, dict[str, Any]]) -> None:
    run, results = tampered
    assert results["mro"]["ok"] and results["mro:probe"]["value"] == "3"
    assert results["sealed"]["ok"] is False and "cannot set 'upper'" in results["sealed"]["traceback"]
    assert results["relabel"]["ok"]
    for key in ACCEPTED_ATTEMPTS:  # probes may read dunders: they are the controller's, not heals
        assert "'__healrt__': <healrt label>" in results[key + ":label"]["value"], key
    # The sink at the end still sees heal 1's label: blocked, with its source.
    [violation] = run.events("guard_violation")
    line = next(n for n, text in enumerate(FLOWS.splitlines(), 1) if "# TAMPER sink" in text)
    assert violation["sink"]["line"] == line and violation["rule"] == "taint"
    assert violation["flow"][0]["location"] == "name:name" and violation["flow"][0]["heal_point"] == 1
    assert "tamper.out" not in run.written()


def test_a_replaced_guard_wrapper_is_put_back_and_reported(tampered: tuple[Run, dict[str, Any]]) -> None:
    run, results = tampered
    assert results["wrapper"]["ok"]
    [tamper] = run.events("guard_tamper")
    assert tamper["location"] == "PurePath.write_text" or tamper["location"].endswith(".write_text")


def test_heal_code_cannot_write_or_close_the_control_socket(tampered: tuple[Run, dict[str, Any]]) -> None:
    run, results = tampered
    assert results["control"]["ok"]
    refused = json.loads(results["control:probe"]["value"].replace("'", '"'))
    assert len(refused) == 1  # the control socket, the only socket of the process
    assert not [m for m in run.controller.messages if m.get("kind") == "forged"]
    assert run.controller.outcome["heals_applied"] >= 6  # the channel kept working to the end


AUDIT = r'''
import json, sys, types, importlib, pathlib, contextvars
from healrt import guard, taint, vault, sinks, policy, fmtrewrite, taintops
from healrt.healcheck import FORBIDDEN_ATTRIBUTES, FORBIDDEN_NAMES, IMPORT_ALLOWLIST, HIDDEN_PREFIX

guard.configure("enforce", None, lambda kind, **fields: None, lambda file: file == "proj.py")
project = types.ModuleType("proj")
guard.register_module(project.__dict__)
exec(compile("""
import os, pathlib
class Config:
    def __init__(self):
        self.path = "p"
        self.flag = None
def make(x):
    return x
def gen():
    yield 1
CONFIG = Config()
GEN = gen()
ERROR = ValueError("e")
""", "proj.py", "exec"), project.__dict__)
label = taint.new_label(1, {"location": "name:VALUE"})
project.VALUE = taint.wrap("secret", label)
project.PATH = pathlib.Path("/tmp/x")
taint.label_object(project.PATH, label)
taint.label_location(project.CONFIG, ("attr", "flag"), label)
guard.arm()
sinks.report({"kind": "guard_violation", "op": "x"})
if sys.argv[1:] == ["--plant"]:  # the audit's control: a leak it must find
    import enum
    enum.Enum.planted = [{"deep": vault._VAULT}]

state = vault.state()
secret = {id(state): "vault state", id(vault._VAULT): "the ContextVar", id(state.records): "records",
          id(state.policy): "policy", id(state.objects): "object labels", id(state.owners): "location labels",
          id(state.conservative): "conservative locations", id(sinks.audit.hook): "the audit hook"}
secret_types = (taint.Label, vault.State, policy.Policy, policy.Operation, policy.When, fmtrewrite.Check,
                fmtrewrite.FormatRewriter, contextvars.ContextVar, types.CodeType, types.FrameType)
forbidden_modules = {name for name in sys.modules if name == "healrt" or name.startswith("healrt.")}
forbidden_modules |= {"sys", "builtins", "gc", "inspect", "ctypes", "importlib"}

def allowed(name):
    return not name.startswith(("__", HIDDEN_PREFIX)) and name not in FORBIDDEN_ATTRIBUTES and name not in FORBIDDEN_NAMES

roots = [(value, name) for name, value in project.__dict__.items() if allowed(name)]
roots += [(importlib.import_module(name), name) for name in sorted(IMPORT_ALLOWLIST)]
seen, found, frontier = set(), [], roots
SCALARS = (str, bytes, int, float, complex, bool, type(None))
for depth in range(6):
    following = []
    for obj, path in frontier:
        if id(obj) in seen or len(seen) > 400000:
            continue
        seen.add(id(obj))
        if id(obj) in secret:
            found.append(f"{path}: {secret[id(obj)]}")
        if isinstance(obj, secret_types) and not isinstance(obj, type):
            found.append(f"{path}: {type(obj).__name__}")
        if isinstance(obj, types.ModuleType) and obj.__name__ in forbidden_modules:
            found.append(f"{path}: module {obj.__name__}")
            continue
        if type(obj) in SCALARS:
            continue
        children = [(type(obj), f"type({path})")]
        if isinstance(obj, type):
            try:
                children += [(c, f"{path}.mro()[{i}]") for i, c in enumerate(obj.mro())]
            except TypeError:
                pass
        if isinstance(obj, dict):
            children += [(v, f"{path}[{k!r}]") for k, v in list(obj.items())[:500]]
        elif isinstance(obj, (list, tuple, set, frozenset)):
            children += [(v, f"{path}[{i}]") for i, v in enumerate(list(obj)[:500])]
        try:
            names = dir(obj)
        except Exception:
            names = []
        for name in names:
            if not allowed(name):
                continue
            try:
                children.append((getattr(obj, name), f"{path}.{name}"))
            except Exception:
                continue
        following.extend(children)
    frontier = following
print(json.dumps({"objects": len(seen), "found": sorted(set(found))[:50]}))
'''


def _audit(tmp_path: Path, *args: str) -> dict[str, Any]:
    script = tmp_path / "audit.py"
    script.write_text(AUDIT)
    env = {"PYTHONPATH": str(HEALRT_ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    completed = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, env=env,
                               timeout=RUN_TIMEOUT * 3, cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    report: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
    return report


def test_no_guard_state_is_reachable_from_heal_code_in_an_armed_process(tmp_path: Path) -> None:
    report = _audit(tmp_path)
    assert report["objects"] > 5_000  # the walk really covered the modules
    assert report["found"] == []
    planted = _audit(tmp_path, "--plant")
    assert any(found.endswith(": the ContextVar") for found in planted["found"]), planted
