"""How the MCP adapter sorts JSON-RPC errors of a tool call into per-call failures and fatal ends."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

from healbench_client import reasons
from healbench_client.mcp_gateway import McpGateway, reason_in
from healbench_client.model import Failure, FatalError, Resume
from healbench_client.status import ends_the_run
from healbench_client.strategy import Heal

HEAL = Heal("pass", Resume.SKIP)


class Raising:
    """Stands in for mcp.Client: every call_tool raises the given error."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        self.calls.append((name, arguments))
        raise self.error


def heal_with(error: Exception, refused: int | None = None) -> Any:
    gateway = McpGateway(Raising(error))  # type: ignore[arg-type]
    gateway.refusals.status = refused
    return asyncio.run(gateway.heal("runs/r/attempts/a", HEAL))


def test_the_contract_s_error_in_json_rpc_data_is_used_as_is() -> None:
    failure = heal_with(MCPError(-32001, "HEAL_REJECTED: x", {"reason": "HEAL_REJECTED", "message": "x",
                                                               "fatal": False}))
    assert isinstance(failure, Failure) and (failure.reason, failure.error.message) == ("HEAL_REJECTED", "x")


def test_a_fatal_error_in_json_rpc_data_ends_the_attempt() -> None:
    with pytest.raises(FatalError) as raised:
        heal_with(MCPError(-32001, "m", {"reason": "TOKEN_INVALID", "message": "expired", "fatal": True}))
    assert raised.value.error.reason == "TOKEN_INVALID" and ends_the_run(raised.value.error)


def test_a_bare_401_mid_run_ends_the_run() -> None:
    with pytest.raises(FatalError) as raised:
        heal_with(MCPError(INTERNAL_ERROR, "Server returned an error response"), refused=401)
    assert raised.value.error.reason == reasons.HTTP_401 and ends_the_run(raised.value.error)


def test_invalid_params_fails_only_the_call() -> None:
    failure = heal_with(MCPError(INVALID_PARAMS, "resume: not one of skip, retry, return"))
    assert isinstance(failure, Failure) and failure.reason == f"JSONRPC_{INVALID_PARAMS}"


def test_any_other_json_rpc_error_is_a_transport_failure() -> None:
    with pytest.raises(FatalError) as raised:
        heal_with(MCPError(INTERNAL_ERROR, "Server returned an error response"))
    assert raised.value.error.reason == reasons.TRANSPORT and not ends_the_run(raised.value.error)


def test_a_connection_failure_is_a_transport_failure() -> None:
    with pytest.raises(FatalError, match="ConnectionRefusedError"):
        heal_with(ConnectionRefusedError("refused"))


def test_the_reason_is_found_inside_exception_groups() -> None:
    error = MCPError(-32001, "m", {"reason": "ROLE_REQUIRED", "message": "no agent role", "fatal": True})
    group = ExceptionGroup("task group", [RuntimeError("other"), ExceptionGroup("inner", [error])])
    found = reason_in(group)
    assert found is not None and (found.reason, found.message, found.fatal) == ("ROLE_REQUIRED", "no agent role", True)
    assert reason_in(RuntimeError("nothing")) is None
