"""Parsing HealBench's MCP tool results, as wire dicts and as the SDK's CallToolResult."""

from __future__ import annotations

import json

import pytest
from mcp_types import CallToolResult, TextContent

from healbench_client import reasons
from healbench_client.mcp_results import parse_claim, parse_heal, parse_plain, parse_reraise, tool_result
from healbench_client.model import Claimed, Crash, Failure, FatalError, Finished, Healed

CLAIM = {"attempt": "runs/r1/attempts/a7", "instance_id": "cpython-argparse-1", "repeat": 2,
         "lease_seconds": 60, "state": "crashed", "heal_point": 1, "exception_type": "TypeError",
         "proceeded": False}


def wire(structured: dict | None, *, error: bool = False, text: str = "text") -> dict:
    result: dict = {"content": [{"type": "text", "text": text}], "isError": error}
    if structured is not None:
        result["structuredContent"] = structured
    return result


def sdk(structured: dict | None, *, error: bool = False, text: str = "text") -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured,
                          is_error=error)


@pytest.mark.parametrize("shape", [wire, sdk])
def test_a_claim_at_a_crash(shape) -> None:  # type: ignore[no-untyped-def]
    assert parse_claim(shape(CLAIM)) == Claimed(
        attempt="runs/r1/attempts/a7", instance_id="cpython-argparse-1",
        step=Crash(heal_point=1, exception_type="TypeError"), repeat=2, lease_seconds=60)


def test_a_claim_of_a_program_that_ended_without_crashing() -> None:
    claimed = parse_claim(wire({**CLAIM, "state": "finished", "heal_point": 0, "exception_type": "",
                                "proceeded": True}))
    assert isinstance(claimed, Claimed) and claimed.step == Finished(proceeded=True)


@pytest.mark.parametrize("shape", [wire, sdk])
def test_a_heal_result(shape) -> None:  # type: ignore[no-untyped-def]
    healed = parse_heal(shape({"state": "crashed", "heal_point": 2, "exception_type": "KeyError",
                               "proceeded": False, "changed": ["local:x", "attr:self.y"]}))
    assert healed == Healed(step=Crash(heal_point=2, exception_type="KeyError"), changed=("local:x", "attr:self.y"))


def test_a_reraise_result() -> None:
    assert parse_reraise(wire({"state": "finished", "heal_point": 1, "exception_type": "KeyError",
                               "proceeded": False})) == Finished(proceeded=False)


@pytest.mark.parametrize("shape", [wire, sdk])
def test_a_rejected_heal_is_a_failure_with_its_reason(shape) -> None:  # type: ignore[no-untyped-def]
    failure = parse_heal(shape({"reason": "HEAL_REJECTED", "message": "tainted: os.remove", "fatal": False},
                               error=True))
    assert isinstance(failure, Failure)
    assert (failure.reason, failure.error.message, failure.error.fatal) == (
        "HEAL_REJECTED", "tainted: os.remove", False)


def test_nothing_to_claim_is_a_failure() -> None:
    failure = parse_claim(wire({"reason": "NOTHING_TO_CLAIM", "message": "try later", "fatal": False}, error=True))
    assert isinstance(failure, Failure) and failure.reason == reasons.NOTHING_TO_CLAIM


def test_a_fatal_error_raises() -> None:
    with pytest.raises(FatalError) as raised:
        parse_heal(wire({"reason": "CLAIM_LAPSED", "message": "lease ran out", "fatal": True}, error=True))
    assert raised.value.error.reason == "CLAIM_LAPSED" and raised.value.error.fatal


def test_an_error_without_structured_content_is_still_an_error() -> None:
    failure = parse_plain(wire(None, error=True, text="Tool report_usage failed"))
    assert isinstance(failure, Failure)
    assert (failure.reason, failure.error.message) == (reasons.UNKNOWN, "Tool report_usage failed")


def test_the_text_item_stands_in_for_missing_structured_content() -> None:
    assert parse_claim(wire(None, text=json.dumps(CLAIM))) == parse_claim(wire(CLAIM))
    assert tool_result(wire(None, text="not json")).structured is None


def test_a_success_without_structured_content_is_a_contract_breach() -> None:
    with pytest.raises(FatalError):
        parse_heal(wire(None, text="healed"))


def test_an_unknown_state_is_a_contract_breach() -> None:
    with pytest.raises(FatalError, match="unknown state 'paused'"):
        parse_reraise(wire({"state": "paused"}))


def test_a_claim_without_its_attempt_name_is_a_contract_breach() -> None:
    with pytest.raises(FatalError):
        parse_claim(wire({**CLAIM, "attempt": ""}))


def test_report_usage_success_is_none() -> None:
    assert parse_plain(wire({})) is None
