"""The static stage's side of the protocol: heal{analyze} -> heal_analysis -> heal_commit | heal_abort,
and the AST export it carries (healrt/astexport.py, docs/healguard.md §2)."""

from __future__ import annotations

import ast
import json
from typing import Any

from conftest import PROJECT, project_line
from helpers import Controller, run_healrt

from healrt import astexport
from healrt.sites import SiteTable


def analyzed_heal(ctl: Controller, code: str, resume: str = "skip") -> dict[str, Any]:
    """Sends heal{analyze: true}; returns the first answer: heal_analysis, or heal_result if the dry run failed."""
    heal_id = f"h{len(ctl.messages)}"
    ctl.send({"cmd": "heal", "id": heal_id, "code": code, "resume": resume, "analyze": True})
    while True:
        message = ctl.read()
        assert message is not None, "runtime went away"
        if message["type"] in ("heal_analysis", "heal_result"):
            assert message["id"] == heal_id
            return message


def answer(ctl: Controller, command: dict[str, Any]) -> dict[str, Any]:
    ctl.send(command)
    while True:
        message = ctl.read()
        assert message is not None, "runtime went away"
        if message["type"] == "heal_result":
            return message


def test_commit_applies_the_analysed_heal_and_reports_crash_point_and_modules(project):
    seen: list[dict[str, Any]] = []

    def on_crash(ctl: Controller, context: dict[str, Any]) -> None:
        analysis = analyzed_heal(ctl, "acc = float(acc)")
        seen.append(analysis)
        seen.append(answer(ctl, {"cmd": "heal_commit", "id": analysis["id"]}))
    ctl = Controller(on_crash)
    run = run_healrt(project("test_through_caller"), ctl)
    assert run.returncode == 0, run.stdout + run.stderr
    analysis, result = seen
    assert analysis["type"] == "heal_analysis" and analysis["heal_point"] == 1
    assert [(e["location"], e["kind"]) for e in analysis["delta"]] == [("name:acc", "both")]
    point = analysis["crash_point"]
    crash_line = project_line("acc += int(x)")
    assert (point["file"], point["function"], point["qualname"], point["line"], point["col"]) == (
        "healproj.py", "total", "total", crash_line, 8)
    assert (point["kind"], point["resume"]) == ("augassign", "skip")
    [caller] = point["callers"]  # the test function is not project code
    call_line = project_line("result = total(items)")
    call_col = PROJECT.splitlines()[call_line - 1].index("total(items)")
    assert (caller["file"], caller["function"], caller["line"]) == ("healproj.py", "run_total", call_line)
    assert (caller["col"], caller["end_col"]) == (call_col, call_col + len("total(items)"))
    assert caller["through_library"] is False
    # The crashing module first; healmod is not loaded by this test.
    assert [(m["file"], m["module"]) for m in analysis["modules"]] == [("healproj.py", "healproj")]
    assert analysis["modules_truncated"] is False
    tree = analysis["modules"][0]["ast"]
    assert tree == json.loads(json.dumps(astexport.tree_json(ast.parse(PROJECT))))
    assert result["ok"] is True and result["changed"] == ["acc"]
    assert ctl.outcome["passed"] is True
    assert (ctl.outcome["heals_applied"], ctl.outcome["heals_rejected"]) == (1, 0)


def test_abort_leaves_the_live_state_untouched_and_the_session_paused(project):
    seen: list[dict[str, Any]] = []

    def on_crash(ctl: Controller, context: dict[str, Any]) -> None:
        analysis = analyzed_heal(ctl, "items.append('7'); acc = 100")
        seen.append(answer(ctl, {"cmd": "heal_abort", "id": analysis["id"], "reason": "static: tainted"}))
        seen.append(ctl.probe("(len(items), acc)"))
        seen.append(ctl.heal("acc = acc"))  # a plain heal afterwards: still paused at the same crash
    ctl = Controller(on_crash)
    run = run_healrt(project("test_skip"), ctl)
    aborted, probe, healed = seen
    assert aborted["ok"] is False and aborted["error"] == {"reason": "aborted", "message": "static: tainted"}
    assert aborted["changed"] == []
    assert probe["value"] == "(3, 1)"
    assert healed["ok"] is True
    assert run.returncode == 0, run.stdout + run.stderr  # a leaked '7' or acc=100 would fail the total
    outcome = ctl.outcome
    assert (outcome["heal_points"], outcome["heals_applied"], outcome["heals_rejected"]) == (1, 1, 1)
    assert outcome["rejections"] == [{"heal_point": 1, "reason": "static: tainted"}]


def test_a_failing_dry_run_answers_without_analysis(project):
    seen: list[dict[str, Any]] = []

    def on_crash(ctl: Controller, context: dict[str, Any]) -> None:
        seen.append(analyzed_heal(ctl, "acc = 1 / 0"))
        ctl.heal("acc = acc")
    ctl = Controller(on_crash)
    run_healrt(project("test_skip"), ctl)
    [failed] = seen
    assert failed["type"] == "heal_result" and failed["error"]["reason"] == "raised"
    assert ctl.of_type("heal_analysis") == []


def test_other_commands_while_deciding_are_refused_and_return_resumes(project):
    seen: list[dict[str, Any]] = []

    def on_crash(ctl: Controller, context: dict[str, Any]) -> None:
        analysis = analyzed_heal(ctl, "_return_ = 42", resume="return")
        seen.append(analysis)
        ctl.send({"cmd": "probe", "id": "p", "code": "1"})
        ctl.send({"cmd": "heal_commit", "id": "not-this-heal"})
        seen.append(answer(ctl, {"cmd": "heal_commit", "id": analysis["id"]}))
    ctl = Controller(on_crash)
    run = run_healrt(project("test_return_at_return_site"), ctl)
    assert run.returncode == 0, run.stdout + run.stderr
    analysis, result = seen
    assert analysis["crash_point"]["resume"] == "return"
    assert ("name:_return_", "both") in [(e["location"], e["kind"]) for e in analysis["delta"]]
    assert result["ok"] is True
    refused = [e for e in ctl.of_type("event") if e["kind"] == "bad_command"]
    assert len(refused) == 2 and all("heal_commit or heal_abort" in e["message"] for e in refused)
    assert ctl.of_type("probe_result") == []


def test_module_level_crash_point(project):
    seen: list[dict[str, Any]] = []

    def on_crash(ctl: Controller, context: dict[str, Any]) -> None:
        analysis = analyzed_heal(ctl, "LIMIT = 5")
        seen.append(analysis)
        answer(ctl, {"cmd": "heal_commit", "id": analysis["id"]})
    ctl = Controller(on_crash)
    run_healrt(project("test_module_level_crash"), ctl)
    [analysis] = seen
    point = analysis["crash_point"]
    assert (point["file"], point["function"], point["line"], point["callers"]) == ("healmod.py", "<module>", 1, [])
    assert analysis["modules"][0]["module"] == "healmod"


# ---------------------------------------------------------------- the exporter itself

def test_tree_json_shape() -> None:
    tree = astexport.tree_json(ast.parse("x = b'\\xff' + None\ndef f(a, *r): return 1.5, float('inf'), '\\ud800'\n"))
    assign, function = tree["body"]
    assert assign["_type"] == "Assign" and assign["targets"][0] == {
        "_type": "Name", "id": "x", "ctx": {"_type": "Store"},
        "lineno": 1, "col_offset": 0, "end_lineno": 1, "end_col_offset": 1}
    assert "type_comment" not in assign  # None fields are left out
    binop = assign["value"]
    assert binop["left"]["value"] == {"repr": "b'\\xff'"} and binop["right"]["value"] is None
    assert "kwarg" not in function["args"] and function["args"]["vararg"]["arg"] == "r"
    returned = function["body"][0]["value"]["elts"]
    assert returned[0]["value"] == 1.5
    assert returned[2]["value"] == {"repr": "'\\ud800'"}  # a lone surrogate cannot cross as UTF-8
    json.dumps(tree, allow_nan=False).encode("utf-8")


def test_module_names() -> None:
    assert astexport.module_name("pkg/__init__.py") == "pkg"
    assert astexport.module_name("pkg/sub/mod.py") == "pkg.sub.mod"
    assert astexport.module_name("single.py") == "single"


def test_modules_follow_imports_then_the_rest_under_the_cap(tmp_path) -> None:
    sources = {
        "app/__init__.py": "",
        "app/main.py": "from . import util\nfrom app.helpers import h\n",
        "app/util.py": "X = 1\n",
        "app/helpers.py": "def h(): return 2\n",
        "aaa.py": "Y = 2\n",
    }
    table = SiteTable()
    for relative, source in sources.items():
        table.add_file(str(tmp_path / relative), source)
    modules, truncated = astexport.export_modules([str(tmp_path / "app/main.py")], table, str(tmp_path))
    assert [m["module"] for m in modules] == ["app.main", "app", "app.util", "app.helpers", "aaa"]
    assert truncated is False
    sizes = [len(json.dumps(m["ast"], separators=(",", ":")).encode()) for m in modules]
    capped, truncated = astexport.export_modules([str(tmp_path / "app/main.py")], table, str(tmp_path),
                                                 cap=sizes[0] + sizes[1])
    assert [m["module"] for m in capped] == ["app.main", "app"] and truncated is True
