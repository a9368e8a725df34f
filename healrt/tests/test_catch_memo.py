"""Verdicts remembered by stack signature must still follow the program: a rebound except-clause
type is looked up again, and repeated undecided constructs are reported once, then counted."""

from __future__ import annotations

from pathlib import Path

from helpers import Controller, reraise, run_healrt, write_spec

PROJECT = '''\
class Special(Exception):
    pass


Raised = Special


class Maybe:
    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return True


def bad():
    raise Raised("bad")


def caller():
    try:
        return bad()
    except Special:
        return -1


def swallowed():
    with Maybe():
        return bad()


def deferred():
    result = swallowed()
    return result
'''

TESTS = '''\
import catchproj


def test_rebound_handler_type():
    for _ in range(3):
        assert catchproj.caller() == -1
    catchproj.Special = KeyError  # `except Special` no longer matches what bad() raises (Raised)
    catchproj.caller()


def test_repeated_undecided():
    for _ in range(5):
        assert catchproj.deferred() is None
'''


def run(tmp_path: Path, test_name: str) -> Controller:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "catchproj.py").write_text(PROJECT)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_target.py").write_text(TESTS)
    node = f"{tmp_path / 'tests' / 'test_target.py'}::{test_name}"
    spec = write_spec(tmp_path, source_dir=str(tmp_path / "src"), project_modules=["catchproj"],
                      pytest_args=[node, "-q", "-p", "no:cacheprovider"])

    ctl = Controller(reraise)
    run_healrt(spec, ctl)
    return ctl


def test_rebound_handler_type_is_looked_up_again(tmp_path: Path) -> None:
    ctl = run(tmp_path, "test_rebound_handler_type")
    assert [crash["statement"]["source"] for crash in ctl.crashes] == ['raise Raised("bad")']


def test_repeated_undecided_construct_is_reported_once_then_counted(tmp_path: Path) -> None:
    ctl = run(tmp_path, "test_repeated_undecided")
    events = ctl.of_type("event")
    undecided = [event for event in events if event["kind"] == "catch_undecided"]
    assert [(event["decision"], event["line"]) for event in undecided] == [("deferred", 29)]
    repeats = [event for event in events if event["kind"] == "catch_undecided_repeats"]
    assert len(repeats) == 1
    # Met twice per call (at `raise` in bad(), then at `return bad()`), five calls: 9 repeats.
    assert [(c["decision"], c["line"], c["repeats"]) for c in repeats[0]["constructs"]] == [("deferred", 29, 9)]
    assert ctl.crashes == []
    assert ctl.outcome["passed"] is True
