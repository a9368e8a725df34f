"""The bool/None rule when the healed location belongs to a free variable and its key is computed:
a memoizing decorator's cache (`memo`, a local of `memoize`) seen from `wrapper`, which reads
`memo[key]` with a key it computes and crashes on a missing entry. The heal stores None in the
cache; the wrapper then names a file after the cached value and writes it. (Found by the
controlled suite on thefuck's memoize.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers import Controller, run_healrt, write_project, write_spec
from test_heal_analysis import analyzed_heal, answer

PROJECT = '''\
import os


def memoize(fn):
    memo = {}

    def wrapper(*args):
        key = repr(args)
        if len(args) > 1:
            memo[key] = fn(*args)
        value = memo[key]
        name = "cached" if value is None else "computed"
        with open(os.path.join(os.environ["CLOSURE_OUT"], name), "w") as handle:
            handle.write("x")
        return value

    return wrapper


@memoize
def lookup(name):
    return name
'''

TARGET = '''\
import closureproj


def test_lookup():
    closureproj.lookup("only")
'''


def run(tmp_path: Path, mode: str) -> tuple[Controller, Path]:
    source_dir, target = write_project(tmp_path, "closureproj", PROJECT, TARGET)
    out = tmp_path / "out"
    out.mkdir()
    results: list[dict[str, Any]] = []

    def on_crash(ctl: Controller, context: dict[str, Any]) -> None:
        analysis = analyzed_heal(ctl, "memo[key] = None", resume="retry")
        assert analysis["type"] == "heal_analysis", analysis
        results.append(answer(ctl, {"cmd": "heal_commit", "id": analysis["id"], "static_verdict": "unknown"}))

    spec = write_spec(tmp_path, source_dir=str(source_dir), project_modules=["closureproj"],
                      pytest_args=[f"{target}::test_lookup", "-q", "-p", "no:cacheprovider"],
                      guard={"mode": mode})
    ctl = Controller(on_crash)
    completed = run_healrt(spec, ctl, extra_env={"CLOSURE_OUT": str(out)})
    assert [r["ok"] for r in results] == [True], (results, completed.stdout + completed.stderr)
    return ctl, out


def test_a_none_cached_through_a_free_variable_is_followed_to_the_write(tmp_path: Path) -> None:
    ctl, out = run(tmp_path, "enforce")
    violations = [m for m in ctl.of_type("event") if m["kind"] == "guard_violation"]
    assert [(v["rule"], v["op"], v["verdict"]) for v in violations] == [("conservative", "open", "blocked")], violations
    assert not (out / "cached").exists()
    assert not (out / "computed").exists()


def test_observe_records_it_and_the_write_happens(tmp_path: Path) -> None:
    ctl, out = run(tmp_path, "observe")
    violations = [m for m in ctl.of_type("event") if m["kind"] == "guard_violation"]
    assert [(v["rule"], v["verdict"]) for v in violations] == [("conservative", "observed")], violations
    assert (out / "cached").is_file()
