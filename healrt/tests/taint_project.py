"""A project of flow shapes for the dynamic guard's end-to-end tests (test_taint_flows, test_tamper).

Every shape function first crashes on `CONFIG[<its name>]` (a KeyError); the controller heals it
with HEALS[<its name>], which writes a value, and the function goes on to a protected operation.
In an unsafe shape the operation's key input comes from the healed value; in a safe shape it is
independent of it but looks alike. Sink lines carry a `# SINK <shape>` or `# SAFE <shape>` marker.
Outputs go to files named after the shape in the directory given by $FLOW_OUT, so a test sees
which operations ran.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from healrt.policy import default_policy_data
from helpers import Controller, run_healrt, write_spec

FLOWS = '''\
import os
import pathlib
import socket
import sqlite3
import subprocess
import sys

import healrt
from os import system as run_system

CONFIG = {}
PREFIX = "plain"
STRICT = False
QUIET = False
SETTINGS = {"strict": False}
OPTIONS = {"quiet": False}
STORED = []


class Box:
    def __init__(self):
        self.name = "box"
        self.alias = None


SHARED = Box()


def make_name(stem):
    return stem.upper() + ".out"


@healrt.protected(arg="key")
def store(key, payload):
    STORED.append((key, payload))


def direct(d):
    name = CONFIG["direct"]
    open(os.path.join(d, name), "w").close()  # SINK direct


def direct_safe(d):
    name = CONFIG["direct_safe"]
    print(len(name))
    open(os.path.join(d, "direct_safe.out"), "w").close()  # SAFE direct


def arithmetic(d):
    n = CONFIG["arithmetic"]
    count = n * 2 + 1
    open(os.path.join(d, "arith-" + str(count) + ".out"), "w").close()  # SINK arithmetic


def arithmetic_safe(d):
    n = CONFIG["arithmetic_safe"]
    count = 3 * 2 + 1
    print(n * 2)
    open(os.path.join(d, "arith_safe-" + str(count) + ".out"), "w").close()  # SAFE arithmetic


def fstring(d):
    tag = CONFIG["fstring"]
    open(f"{d}/{tag}.out", "w").close()  # SINK fstring


def fstring_safe(d):
    tag = CONFIG["fstring_safe"]
    print(f"{tag}!")
    open(f"{d}/fstring_safe.out", "w").close()  # SAFE fstring


def percent(d):
    tag = CONFIG["percent"]
    open("%s/%s.out" % (d, tag), "w").close()  # SINK percent


def percent_safe(d):
    tag = CONFIG["percent_safe"]
    print("%s!" % tag)
    open("%s/%s.out" % (d, "percent_safe"), "w").close()  # SAFE percent


def dotformat(d):
    tag = CONFIG["dotformat"]
    open("{}/{}.out".format(d, tag), "w").close()  # SINK dotformat


def dotformat_safe(d):
    tag = CONFIG["dotformat_safe"]
    print("{}!".format(tag))
    open("{}/{}.out".format(d, "dotformat_safe"), "w").close()  # SAFE dotformat


def joined(d):
    tag = CONFIG["joined"]
    open("/".join([d, tag + ".out"]), "w").close()  # SINK joined


def joined_safe(d):
    tag = CONFIG["joined_safe"]
    print("-".join([tag, tag]))
    open("/".join([d, "joined_safe.out"]), "w").close()  # SAFE joined


def strcall(d):
    number = CONFIG["strcall"]
    open(os.path.join(d, "n" + str(number) + ".out"), "w").close()  # SINK strcall


def strcall_safe(d):
    number = CONFIG["strcall_safe"]
    print(str(number))
    open(os.path.join(d, "n" + str(8) + ".out"), "w").close()  # SAFE strcall


def container(d):
    parts = CONFIG["container"]
    open(os.path.join(d, parts[1]), "w").close()  # SINK container


def container_safe(d):
    parts = CONFIG["container_safe"]
    other = ["x", "container_safe.out"]
    print(len(parts))
    open(os.path.join(d, other[1]), "w").close()  # SAFE container


def attribute(d):
    box = Box()
    box.name = CONFIG["attribute"]
    open(os.path.join(d, box.name), "w").close()  # SINK attribute


def attribute_safe(d):
    box = Box()
    box.alias = CONFIG["attribute_safe"]
    open(os.path.join(d, box.name + "_safe.out"), "w").close()  # SAFE attribute


def alias(d):
    first = CONFIG["alias"]
    second = first
    box = Box()
    box.alias = second
    third = box.alias
    open(os.path.join(d, third), "w").close()  # SINK alias


def alias_safe(d):
    first = CONFIG["alias_safe"]
    second = first
    third = "alias_safe.out"
    print(second)
    open(os.path.join(d, third), "w").close()  # SAFE alias


def callee(d):
    stem = CONFIG["callee"]
    open(os.path.join(d, make_name(stem)), "w").close()  # SINK callee


def callee_safe(d):
    stem = CONFIG["callee_safe"]
    print(make_name(stem))
    open(os.path.join(d, make_name("callee_safe")), "w").close()  # SAFE callee


def set_global(d):
    unused = CONFIG["set_global"]


def use_global(d):
    open(os.path.join(d, PREFIX + "-global.out"), "w").close()  # SINK global


def use_global_safe(d):
    open(os.path.join(d, "global_safe.out"), "w").close()  # SAFE global


def loop(d):
    parts = ["lo", "op"]
    parts.append(CONFIG["loop"])
    acc = ""
    for part in parts:
        acc += part
    open(os.path.join(d, acc + ".out"), "w").close()  # SINK loop


def loop_safe(d):
    parts = ["loop", "_safe"]
    extra = CONFIG["loop_safe"]
    acc = ""
    for part in parts:
        acc += part
    print(extra)
    open(os.path.join(d, acc + ".out"), "w").close()  # SAFE loop


def exception(d):
    name = CONFIG["exception"]
    try:
        raise ValueError(name)
    except ValueError as error:
        target = str(error)
    open(os.path.join(d, target), "w").close()  # SINK exception


def exception_safe(d):
    name = CONFIG["exception_safe"]
    try:
        raise ValueError(name)
    except ValueError as error:
        print(error)
        target = "exception_safe.out"
    open(os.path.join(d, target), "w").close()  # SAFE exception


def path(d):
    name = CONFIG["path"]
    (pathlib.Path(d) / name).write_text("1")  # SINK path


def path_safe(d):
    name = CONFIG["path_safe"]
    print(pathlib.Path(name).suffix)
    (pathlib.Path(d) / "path_safe.out").write_text("1")  # SAFE path


def flag(d):
    force = CONFIG["flag"]
    target = "flag.out" if force else "flag-no.out"
    open(os.path.join(d, target), "w").close()  # SINK bool


def prepare_none(d):
    SHARED.alias = CONFIG["prepare_none"]


def none(d):
    box = SHARED
    target = box.alias or "none.out"
    open(os.path.join(d, target), "w").close()  # SINK none


def none_safe(d):
    open(os.path.join(d, "none_safe.out"), "w").close()  # SAFE none


def process(d):
    name = CONFIG["process"]
    subprocess.run([sys.executable, "-c", "open(%r, 'w').close()" % os.path.join(d, name)], check=True)  # SINK process


def process_safe(d):
    name = CONFIG["process_safe"]
    print(name)
    subprocess.run([sys.executable, "-c", "open(%r, 'w').close()" % os.path.join(d, "process_safe.out")], check=True)  # SAFE process


def database(d):
    table = CONFIG["database"]
    connection = sqlite3.connect(":memory:")
    connection.execute("create table %s (x)" % table)  # SINK database
    open(os.path.join(d, "database.out"), "w").close()


def database_safe(d):
    table = CONFIG["database_safe"]
    connection = sqlite3.connect(":memory:")
    connection.execute("create table t (x)")  # SAFE database
    print(table)
    open(os.path.join(d, "database_safe.out"), "w").close()


def network(d):
    payload = CONFIG["network"]
    left, right = socket.socketpair()
    left.send(payload)  # SINK network
    open(os.path.join(d, "network.out"), "w").close()


def network_safe(d):
    payload = CONFIG["network_safe"]
    left, right = socket.socketpair()
    left.send(b"fixed")  # SAFE network
    print(payload)
    open(os.path.join(d, "network_safe.out"), "w").close()


def environment(d):
    key = CONFIG["environment"]
    os.environ[key] = "1"  # SINK environment
    open(os.path.join(d, "environment.out"), "w").close()


def environment_safe(d):
    key = CONFIG["environment_safe"]
    os.environ["HEALRT_TEST_SAFE"] = "1"  # SAFE environment
    print(key)
    open(os.path.join(d, "environment_safe.out"), "w").close()


def shell(d):
    command = CONFIG["shell"]
    run_system(command)  # SINK shell
    open(os.path.join(d, "shell.out"), "w").close()


def shell_safe(d):
    command = CONFIG["shell_safe"]
    run_system("true")  # SAFE shell
    print(command)
    open(os.path.join(d, "shell_safe.out"), "w").close()


def protected_call(d):
    key = CONFIG["protected_call"]
    store(key, "payload")  # SINK protected
    open(os.path.join(d, "protected_call.out"), "w").close()


def protected_call_safe(d):
    key = CONFIG["protected_call_safe"]
    store("fixed", key)  # SAFE protected
    open(os.path.join(d, "protected_call_safe.out"), "w").close()


def checked(d):
    level = CONFIG["checked"]
    if STRICT:  # SINK check
        open(os.path.join(d, "checked.out"), "w").close()


def checked_safe(d):
    level = CONFIG["checked_safe"]
    if not QUIET:  # SAFE check
        open(os.path.join(d, "checked_safe.out"), "w").close()


def checked_item(d):
    level = CONFIG["checked_item"]
    if SETTINGS['strict']:  # SINK check_item
        open(os.path.join(d, "checked_item.out"), "w").close()


def checked_item_safe(d):
    level = CONFIG["checked_item_safe"]
    if not OPTIONS["quiet"]:  # SAFE check_item
        open(os.path.join(d, "checked_item_safe.out"), "w").close()


def heal_code(d):
    value = CONFIG["heal_code"]
    open(os.path.join(d, "heal_code_after.out"), "w").close()


def many(d):
    name = CONFIG["many"]
    for number in range(150):
        open(os.path.join(d, name + str(number)), "w").close()  # LOOP many


def tamper(d):
    name = CONFIG["tamper"]
    for round in range(7):
        attempt = CONFIG["tamper_attempt"]
    open(os.path.join(d, name), "w").close()  # TAMPER sink


def forks(d):
    pid = os.fork()  # SINK fork
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    open(os.path.join(d, "forks.out"), "w").close()
'''

# The heal of each shape's crash: a HealCore assignment of the value that flows (or does not).
HEALS = {
    "direct": "name = 'direct.out'",
    "direct_safe": "name = 'direct.out'",
    "arithmetic": "n = 3",
    "arithmetic_safe": "n = 3",
    "fstring": "tag = 'fstring'",
    "fstring_safe": "tag = 'fstring'",
    "percent": "tag = 'percent'",
    "percent_safe": "tag = 'percent'",
    "dotformat": "tag = 'dotformat'",
    "dotformat_safe": "tag = 'dotformat'",
    "joined": "tag = 'joined'",
    "joined_safe": "tag = 'joined'",
    "strcall": "number = 7",
    "strcall_safe": "number = 7",
    "container": "parts = ['x', 'container.out']",
    "container_safe": "parts = ['x', 'container.out']",
    "attribute": "box.name = 'attribute.out'",
    "attribute_safe": "box.alias = 'attribute.out'",
    "alias": "first = 'alias.out'",
    "alias_safe": "first = 'alias.out'",
    "callee": "stem = 'callee'",
    "callee_safe": "stem = 'callee'",
    "set_global": "unused = 0\nPREFIX = 'healed'",
    "loop": "parts.append('ed')",
    "loop_safe": "extra = 'ed'",
    "exception": "name = 'exception.out'",
    "exception_safe": "name = 'exception.out'",
    "path": "name = 'path.out'",
    "path_safe": "name = 'path.out'",
    "flag": "force = True",
    "prepare_none": "SHARED.alias = None",
    "process": "name = 'process.out'",
    "process_safe": "name = 'process.out'",
    "database": "table = 'healed'",
    "database_safe": "table = 'healed'",
    "network": "payload = b'healed'",
    "network_safe": "payload = b'healed'",
    "environment": "key = 'HEALRT_TEST_HEALED'",
    "environment_safe": "key = 'HEALRT_TEST_HEALED'",
    "shell": "command = 'true'",
    "shell_safe": "command = 'true'",
    "protected_call": "key = 'healed'",
    "protected_call_safe": "key = 'healed'",
    "checked": "level = 1\nSTRICT = True",
    "checked_safe": "level = 1",
    "checked_item": "level = 1\nSETTINGS['strict'] = True",
    "checked_item_safe": "level = 1",
    "heal_code": "import os\nopen(os.path.join(d, 'heal_code.out'), 'w').close()\nvalue = 1",
    "many": "name = 'many'",
}
# A heal the guard refuses (enforce) is followed by this one.
FALLBACK_HEAL = "value = 1"

# The order the target test calls the shapes in (`use_global*` and `none*` have no crash).
ORDER = [
    "direct", "direct_safe", "arithmetic", "arithmetic_safe", "fstring", "fstring_safe", "percent", "percent_safe",
    "dotformat", "dotformat_safe", "joined", "joined_safe", "strcall", "strcall_safe", "container", "container_safe",
    "attribute", "attribute_safe", "alias", "alias_safe", "callee", "callee_safe", "set_global", "use_global",
    "use_global_safe", "loop", "loop_safe", "exception", "exception_safe", "path", "path_safe", "flag",
    "prepare_none", "none", "none_safe", "process", "process_safe", "database", "database_safe", "network",
    "network_safe", "environment", "environment_safe", "shell", "shell_safe", "protected_call", "protected_call_safe", "checked", "checked_safe", "checked_item", "checked_item_safe",
    "heal_code", "forks",
]

TARGET = '''\
import os

import flows
from healrt import HealGuardViolation

ORDER = %r


def test_shapes():
    out = os.environ["FLOW_OUT"]
    for name in ORDER:
        try:
            getattr(flows, name)(out)
        except HealGuardViolation as violation:
            print("blocked", name, violation)
''' % (ORDER,)

# The item checks are spelt in both quote styles: the policy's spelling does not have to match the code's. The safe
# twin reads another container: the conservative rule flags any frame holding one a heal wrote a bool into.
CHECKS = [{"check": "STRICT", "module": "flows"}, {"check": "QUIET", "module": "flows"},
          {"check": 'SETTINGS["strict"]', "module": "flows"}, {"check": "OPTIONS['quiet']", "module": "flows"}]


def marker_lines(marker: str) -> dict[str, int]:
    """Shape -> line of its `# <marker> <shape>` comment in FLOWS."""
    found = {}
    for number, line in enumerate(FLOWS.splitlines(), start=1):
        if f"# {marker} " in line:
            found[line.rsplit(f"# {marker} ", 1)[1].strip()] = number
    return found


def policy_with_checks() -> dict[str, Any]:
    policy = default_policy_data()
    policy["operations"]["checks"] = CHECKS
    return policy


class Run:
    def __init__(self, controller: Controller, out: Path, stdout: str) -> None:
        self.controller = controller
        self.out = out
        self.stdout = stdout

    def events(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.controller.of_type("event") if m["kind"] == kind]

    def written(self) -> set[str]:
        return {p.name for p in self.out.iterdir()}


def run_flows(tmp_path: Path, mode: str, on_result: Callable[[str, dict[str, Any]], None] | None = None,
              order: list[str] | None = None,
              on_crash: Callable[[Controller, dict[str, Any]], None] | None = None) -> Run:
    """Run the target test over the shapes (or `order`) under healrt in guard `mode`; crashes are
    healed with HEALS unless `on_crash` is given."""
    source_dir = tmp_path / "src"
    source_dir.mkdir()
    (source_dir / "flows.py").write_text(FLOWS)
    test_dir = tmp_path / "tests"
    test_dir.mkdir()
    target = TARGET if order is None else TARGET.replace(repr(ORDER), repr(order))
    (test_dir / "test_flows.py").write_text(target)
    out = tmp_path / "out"
    out.mkdir()

    def heal_by_function(ctl: Controller, context: dict[str, Any]) -> None:
        function = context["traceback"][-1]["function"]
        result = ctl.heal(HEALS[function])
        if on_result is not None:
            on_result(function, result)
        if not result["ok"]:
            assert result["error"]["reason"] == "guard", result
            assert ctl.heal(FALLBACK_HEAL)["ok"]

    spec = write_spec(tmp_path, source_dir=str(source_dir), project_modules=["flows"],
                      pytest_args=[f"{test_dir / 'test_flows.py'}::test_shapes", "-q", "-s", "-p", "no:cacheprovider"],
                      max_heal_points=100, guard={"mode": mode, "policy": policy_with_checks()})
    controller = Controller(on_crash or heal_by_function)
    completed = run_healrt(spec, controller, extra_env={"FLOW_OUT": str(out)})
    assert controller.outcome["passed"], completed.stdout + completed.stderr
    return Run(controller, out, completed.stdout)
