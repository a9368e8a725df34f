"""`if`/`elif` tests are sites of their own: a crash while evaluating one pauses there, `skip`
skips the whole if/elif/else statement (at an `elif`, the rest of the chain), `retry` evaluates
the test again, `return` returns; without a crash the program runs exactly as written."""

from __future__ import annotations

import ast
import types
from pathlib import Path
from typing import Any

import pytest

from helpers import Controller, run_healrt, write_project, write_spec
from test_heal_analysis import analyzed_heal, answer

from healrt import context as crash_context
from healrt.rewrite import COND_SLOT, PROPAGATE, RETRY, RETURN, SKIP, rewrite_module
from healrt.sites import SiteTable

# ---------------------------------------------------------------- the rewrite, in process

UNIT = '''\
import enum

calls = []


class Flag:
    def __init__(self, value):
        self.value = value
        self.bools = 0

    def __bool__(self):
        self.bools += 1
        return self.value


def chain(a, b):
    if a:
        calls.append("if")
        return "first"
    elif b:
        calls.append("elif")
        return "second"
    else:
        calls.append("else")
        return "third"
    calls.append("after")  # reached only after a skip at a test


def no_else(a):
    out = "before"
    if a:
        out = "body"
    return out


def nested(a, b):
    if a:
        if b:
            return "both"
        return "a"
    return "none"


def combined(a, b, c):
    if a and b or not c:
        return True
    return False


def compare(x, low, high):
    if low < x < high:
        return "in"
    return "out"


def constant():
    if 0:
        return "dead"
    if __debug__:
        return "debug"
    return "optimised"


def in_loop(values):
    seen = []
    for value in values:
        if value.key > 0:
            seen.append("positive")
        else:
            seen.append("other")
    return seen


def guarded(item):
    try:
        if item["size"] > 1:
            return "big"
        return "small"
    except KeyError:
        return "missing"


if calls == []:
    MODULE = "empty"
else:
    MODULE = "full"


class Color(enum.Enum):
    RED = 1
    if MODULE == "empty":
        GREEN = 2
    else:
        BLUE = 3


class Plain:
    """Doc."""
    if MODULE:
        attr = 1
'''


class Scripted:
    """The runtime's hooks: answers each handle() with the next scripted action (PROPAGATE when out)."""

    def __init__(self, *actions: int, value: Any = None, before: Any = None) -> None:
        self.actions = list(actions)
        self.handled: list[int] = []
        self.value = value
        self.before = before  # called at each handle(), like a heal changing the state

    def handle(self, site_id: int) -> int:
        self.handled.append(site_id)
        if self.before is not None:
            self.before()
        return self.actions.pop(0) if self.actions else PROPAGATE

    def return_value(self) -> Any:
        return self.value


def load(hooks: Any = None) -> tuple[types.ModuleType, SiteTable]:
    table = SiteTable()
    tree = rewrite_module(ast.parse(UNIT), "/virtual/unit.py", UNIT, table)
    module = types.ModuleType("unit")
    module.__dict__.update(_healrt_rt=hooks or Scripted(), _healrt_hits=table.module_counters(0))
    exec(compile(tree, "/virtual/unit.py", "exec", dont_inherit=True), module.__dict__)
    return module, table


def _line(source: str, text: str) -> int:
    return next(n for n, line in enumerate(source.splitlines(), start=1) if text in line)


def test_if_sites_in_the_site_table() -> None:
    _, table = load()
    by_source = {site.source: site for site in table.sites if site.kind == "if"}
    assert set(by_source) == {"a", "b", "a and b or not c", "low < x < high", "value.key > 0",
                              'item["size"] > 1', 'calls == []', 'MODULE == "empty"', "MODULE"}
    [elif_site] = [s for s in table.sites if s.source == "b" and s.function == "chain"]
    assert (elif_site.line, elif_site.col, elif_site.end_col) == (_line(UNIT, "elif b:"), 9, 10)
    assert (elif_site.function, elif_site.can_return, elif_site.targets) == ("chain", True, ())
    [first_a] = [s for s in table.sites if s.source == "a" and s.function == "chain"]
    assert (first_a.line, first_a.col) == (_line(UNIT, "    if a:"), 7)
    guarded_test = by_source['item["size"] > 1']
    assert guarded_test.guards[0].kind == "try" and guarded_test.guards[0].handlers == ("KeyError",)
    assert by_source['calls == []'].function is None and by_source['calls == []'].can_return is False
    assert by_source['MODULE == "empty"'].function is None and by_source["MODULE"].can_return is False
    # Constant tests cannot fail: not sites (the compiler still drops their dead branches).
    assert not [s for s in table.sites if s.kind == "if" and s.function == "constant"]


def test_a_normal_run_is_unchanged() -> None:
    module, _ = load()
    assert (module.MODULE, [c.name for c in module.Color]) == ("empty", ["RED", "GREEN"])
    assert module.Plain.__doc__ == "Doc." and module.Plain.attr == 1
    assert not [name for name in (*vars(module.Color), *vars(module.Plain)) if name.startswith("_healrt")]
    assert COND_SLOT not in module.Color.__members__
    assert [module.chain(1, 0), module.chain(0, 1), module.chain(0, 0)] == ["first", "second", "third"]
    assert module.calls == ["if", "elif", "else"]
    assert [module.no_else(True), module.no_else(False)] == ["body", "before"]
    assert [module.nested(1, 1), module.nested(1, 0), module.nested(0, 1)] == ["both", "a", "none"]
    assert module.compare(2, 1, 3) == "in" and module.compare(5, 1, 3) == "out"
    assert module.constant() == "debug"
    assert module.guarded({}) == "missing" and module.guarded({"size": 2}) == "big"
    # Truth values are taken once per test, as `if` takes them: not again at the branch.
    a, b = module.Flag(False), module.Flag(True)
    assert module.chain(a, b) == "second" and (a.bools, b.bools) == (1, 1)
    a, b, c = module.Flag(True), module.Flag(False), module.Flag(True)
    assert module.combined(a, b, c) is False and (a.bools, b.bools, c.bools) == (1, 1, 1)
    a, b, c = module.Flag(False), module.Flag(True), module.Flag(False)
    assert module.combined(a, b, c) is True and (a.bools, b.bools, c.bools) == (1, 0, 1)
    flag = module.Flag(True)
    assert module.no_else(flag) == "body" and flag.bools == 1


class _Raising:
    def __bool__(self) -> bool:
        raise ValueError("ambiguous")


def test_skip_without_an_else_continues_after_the_if() -> None:
    hooks = Scripted(SKIP)
    module, _ = load(hooks)
    assert module.chain(module.Flag(True), 1) == "first" and hooks.handled == []  # the healthy path never asks
    assert module.no_else(_Raising()) == "before"
    assert len(hooks.handled) == 1


def test_skip_at_an_if_does_not_run_the_else_branch() -> None:
    hooks = Scripted(SKIP)
    module, table = load(hooks)
    assert module.chain(_Raising(), 1) is None  # neither `if`, `elif` nor `else` ran
    assert module.calls == ["after"]
    assert [table.sites[site_id].source for site_id in hooks.handled] == ["a"]


def test_skip_at_an_elif_skips_the_rest_of_the_chain_only() -> None:
    hooks = Scripted(SKIP)
    module, table = load(hooks)
    assert module.chain(0, _Raising()) is None
    assert module.calls == ["after"]
    assert [table.sites[site_id].source for site_id in hooks.handled] == ["b"]


def test_retry_evaluates_the_test_again() -> None:
    flag: Any = None

    def fix() -> None:
        flag.value = True  # the heal: the object's truth value can now be taken

    class Healable:
        def __init__(self) -> None:
            self.value: bool | None = None
            self.bools = 0

        def __bool__(self) -> bool:
            self.bools += 1
            if self.value is None:
                raise ValueError("not yet")
            return self.value

    hooks = Scripted(RETRY, before=fix)
    module, _ = load(hooks)
    flag = Healable()
    assert module.chain(flag, 0) == "first" and flag.bools == 2
    assert module.calls == ["if"]


def test_return_at_a_test() -> None:
    module, _ = load(Scripted(RETURN, value="returned"))
    assert module.chain(_Raising(), 1) == "returned"
    assert module.calls == []


def test_a_skip_in_a_loop_leaves_the_later_iterations_alone() -> None:
    class Key:
        def __init__(self, key: Any) -> None:
            self.key = key

    hooks = Scripted(SKIP)
    module, _ = load(hooks)
    # The skipped iteration runs neither branch; the next ones branch on their own test.
    assert module.in_loop([Key(1), Key(None), Key(-1), Key(2)]) == ["positive", "other", "positive"]
    assert len(hooks.handled) == 1


def test_the_program_catching_a_test_error_never_reaches_the_if_body() -> None:
    hooks = Scripted()  # PROPAGATE, as the runtime answers for an exception the program catches
    module, table = load(hooks)
    assert module.guarded({}) == "missing"
    assert [table.sites[site_id].source for site_id in hooks.handled] == ['item["size"] > 1']


def test_the_slot_is_hidden_from_crash_contexts() -> None:
    assert crash_context.hidden_name(COND_SLOT)


# ---------------------------------------------------------------- end to end

PROJECT = '''\
"""Crashes in if/elif tests."""

LOG = []


class Ambiguous:
    def __bool__(self):
        return "maybe"  # the interpreter raises TypeError at the truth test


def classify(item):
    kind = "unknown"
    if item["size"] > 10:
        kind = "big"
    elif item["weight"] > 5:
        kind = "heavy"
    else:
        LOG.append("else ran")
        kind = "small"
    return kind


def truthy(value):
    if value:
        return "yes"
    return "no"


def body_crash(items):
    count = 0
    if items:
        count = int(items[0])
    else:
        count = -1
    return count


def guarded(item):
    try:
        if item["size"] > 10:
            return "big"
        return "small"
    except KeyError:
        return "missing"
'''

MODULE_LEVEL = '''\
CONFIG = {}

if CONFIG["mode"] == "fast":
    SPEED = 2
else:
    SPEED = 1


class Settings:
    level = 0
    if CONFIG["extra"]:
        level = 1
'''

TARGET = '''\
import ifproj


def test_skip():
    assert ifproj.classify({}) == "unknown"
    assert ifproj.LOG == []


def test_retry():
    assert ifproj.classify({"weight": 1}) == "big"


def test_elif():
    assert ifproj.classify({"size": 1}) == "unknown"
    assert ifproj.LOG == []


def test_return():
    assert ifproj.classify({}) == "returned"


def test_bool():
    assert ifproj.truthy(ifproj.Ambiguous()) == "yes"


def test_body():
    assert ifproj.body_crash(["x"]) == 0
    assert ifproj.LOG == []


def test_caught():
    assert ifproj.guarded({}) == "missing"
    assert ifproj.classify({"size": 11}) == "big" and ifproj.classify({"size": 1, "weight": 1}) == "small"


def test_module_level():
    import ifmod
    assert ifmod.SPEED == 2 and ifmod.Settings.level == 0
    assert not [name for name in vars(ifmod.Settings) if name.startswith("_healrt")]
'''


def run(tmp_path: Path, test: str, on_crash: Any) -> tuple[Controller, Any]:
    source_dir, target = write_project(tmp_path, "ifproj", PROJECT, TARGET)
    (source_dir / "ifmod.py").write_text(MODULE_LEVEL)
    spec = write_spec(tmp_path, source_dir=str(source_dir), project_modules=["ifproj", "ifmod"],
                      pytest_args=[f"{target}::{test}", "-q", "-p", "no:cacheprovider"])
    ctl = Controller(on_crash)
    completed = run_healrt(spec, ctl)
    return ctl, completed


def heal_each(*heals: tuple[str, str]) -> Any:
    pending = list(heals)

    def on_crash(ctl: Controller, context: dict[str, Any]) -> None:
        code, resume = pending.pop(0)
        result = ctl.heal(code, resume)
        assert result["ok"], result
    return on_crash


def _project_line(text: str, source: str = PROJECT) -> int:
    return _line(source, text)


def test_a_crash_in_an_if_test_pauses_there_and_skip_skips_the_whole_chain(tmp_path: Path) -> None:
    ctl, completed = run(tmp_path, "test_skip", heal_each(("pass", "skip")))
    assert completed.returncode == 0, completed.stdout + completed.stderr
    [context] = ctl.crashes
    assert (context["exception_type"], context["exception_message"]) == ("KeyError", "'size'")
    line = _project_line('if item["size"] > 10:')
    assert context["statement"] == {
        "source": 'item["size"] > 10', "file": context["statement"]["file"], "line": line, "end_line": line,
        "col": 7, "end_col": 7 + len('item["size"] > 10'), "kind": "if", "targets": []}
    assert context["traceback"][-1]["line"] == line and context["in_function"] is True
    names = {entry["name"] for entry in context["locals"]}
    assert {"item", "kind"} <= names and not [name for name in names if name.startswith("_healrt")]
    outcome = ctl.outcome
    assert outcome["passed"] is True, outcome
    # The test is a trace point; neither branch ran.
    assert outcome["trace"][f"ifproj.py:{line}"] == 1
    assert f"ifproj.py:{_project_line('LOG.append')}" not in outcome["trace"]
    assert f"ifproj.py:{_project_line('return kind')}" in outcome["trace"]


def test_retry_after_a_heal_takes_the_right_branch(tmp_path: Path) -> None:
    ctl, completed = run(tmp_path, "test_retry", heal_each(("item = {'size': 20}", "retry")))
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert len(ctl.crashes) == 1 and ctl.outcome["passed"] is True


def test_an_elif_crash_skips_the_rest_of_the_chain(tmp_path: Path) -> None:
    ctl, completed = run(tmp_path, "test_elif", heal_each(("pass", "skip")))
    assert completed.returncode == 0, completed.stdout + completed.stderr
    [context] = ctl.crashes
    line = _project_line('elif item["weight"] > 5:')
    statement = context["statement"]
    assert (statement["source"], statement["kind"], statement["line"], statement["col"]) == (
        'item["weight"] > 5', "if", line, 9)
    # The slot already holds the first test's value here: it is not shown.
    assert not [entry for entry in context["locals"] if entry["name"].startswith("_healrt")]
    assert ctl.outcome["passed"] is True


def test_return_at_an_if_test(tmp_path: Path) -> None:
    ctl, completed = run(tmp_path, "test_return", heal_each(("_return_ = 'returned'", "return")))
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert ctl.outcome["passed"] is True


def test_a_failing_truth_value_is_a_crash_of_the_test(tmp_path: Path) -> None:
    ctl, completed = run(tmp_path, "test_bool", heal_each(("value = 1", "retry")))
    assert completed.returncode == 0, completed.stdout + completed.stderr
    [context] = ctl.crashes
    assert (context["exception_type"], context["statement"]["source"]) == ("TypeError", "value")
    assert ctl.outcome["passed"] is True


def test_a_crash_in_the_body_is_the_body_statement_as_before(tmp_path: Path) -> None:
    ctl, completed = run(tmp_path, "test_body", heal_each(("count = 0", "skip")))
    assert completed.returncode == 0, completed.stdout + completed.stderr
    [context] = ctl.crashes
    assert (context["statement"]["source"], context["statement"]["kind"]) == ("count = int(items[0])", "assign")
    assert ctl.outcome["passed"] is True  # skip in the body does not run the else branch either


def test_the_programs_own_try_catches_a_test_error_without_a_pause(tmp_path: Path) -> None:
    ctl, completed = run(tmp_path, "test_caught", heal_each())
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert ctl.crashes == [] and ctl.outcome["passed"] is True
    assert ctl.outcome["trace"][f"ifproj.py:{_project_line('else ran')}"] == 1


def test_module_and_class_level_if_tests(tmp_path: Path) -> None:
    results: list[dict[str, Any]] = []
    contexts: list[dict[str, Any]] = []

    def on_crash(ctl: Controller, context: dict[str, Any]) -> None:
        contexts.append(context)
        if len(contexts) == 1:
            results.append(ctl.heal("_return_ = 1", resume="return"))
            results.append(ctl.heal("CONFIG = {'mode': 'fast'}", resume="retry"))
        else:
            results.append(ctl.heal("pass"))
    ctl, completed = run(tmp_path, "test_module_level", on_crash)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert [(c["statement"]["source"], c["statement"]["kind"], c["in_function"]) for c in contexts] == [
        ('CONFIG["mode"] == "fast"', "if", False), ('CONFIG["extra"]', "if", False)]
    assert results[0]["error"]["reason"] == "bad_resume"
    assert results[1]["ok"] and results[1]["changed"] == ["CONFIG"] and results[2]["ok"]
    assert not [entry for c in contexts for entry in c["locals"] if entry["name"].startswith("_healrt")]
    assert ctl.outcome["passed"] is True


@pytest.mark.parametrize(("test", "statement"), [("test_skip", 'if item["size"] > 10:'),
                                                 ("test_elif", 'elif item["weight"] > 5:')])
def test_the_static_stage_is_pointed_at_the_if_statement(tmp_path: Path, test: str, statement: str) -> None:
    seen: list[dict[str, Any]] = []

    def on_crash(ctl: Controller, context: dict[str, Any]) -> None:
        analysis = analyzed_heal(ctl, "pass")
        seen.append(analysis)
        seen.append(answer(ctl, {"cmd": "heal_commit", "id": analysis["id"]}))
    ctl, completed = run(tmp_path, test, on_crash)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    analysis, result = seen
    point = analysis["crash_point"]
    line = _project_line(statement)
    col = PROJECT.splitlines()[line - 1].index(statement.split()[0])
    assert (point["line"], point["col"], point["kind"], point["resume"]) == (line, col, "if", "skip")
    assert result["ok"] is True and ctl.outcome["passed"] is True


@pytest.mark.parametrize(("test", "heal", "source"), [("test_elif", ("pass", "skip"), 'item["weight"] > 5'),
                                                      ("test_bool", ("value = 1", "retry"), "value")])
def test_replay_mode_records_and_wraps_an_if_test(tmp_path: Path, test: str, heal: tuple[str, str],
                                                  source: str) -> None:
    source_dir, target = write_project(tmp_path, "ifproj", PROJECT, TARGET)
    spec = write_spec(tmp_path, source_dir=str(source_dir), project_modules=["ifproj"], mode="replay",
                      pytest_args=[f"{target}::{test}", "-q", "-p", "no:cacheprovider"], code_cache="")
    ctl = Controller(heal_each(heal))
    completed = run_healrt(spec, ctl)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    [context] = ctl.crashes
    assert (context["statement"]["source"], context["statement"]["kind"]) == (source, "if")
    outcome = ctl.outcome
    assert outcome["passed"] is True and outcome["replay"]["restarts"] == 0, outcome
