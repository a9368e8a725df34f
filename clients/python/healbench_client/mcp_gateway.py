"""The MCP adapter: `Gateway` over the official MCP Python SDK (mcp 2.3.0), streamable HTTP.

API as read in the installed SDK (mcp/client/client.py, mcp/client/streamable_http.py):
`mcp.Client(transport, mode=...)` is an async context manager that negotiates the protocol
(`mode="auto"` probes `server/discover` and falls back to the `initialize` handshake);
`mcp.client.streamable_http.streamable_http_client(url, http_client=...)` is the transport, and
headers (the bearer token) go on the `httpx2.AsyncClient` it is given, whose lifetime the caller
owns. `Client.call_tool(name, arguments)` returns a `CallToolResult` (`is_error`,
`structured_content`, `content`); `Client.list_tools(cursor=...)` pages with `next_cursor`.

Unlike gRPC, one MCP session serves every attempt: the tools name the attempt explicitly.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, METHOD_NOT_FOUND

from healbench_client import mcp_results, reasons
from healbench_client.model import Claimed, Failure, FatalError, Healed, Step, Usage
from healbench_client.status import ErrorReason
from healbench_client.strategy import Heal

# The tools the simple strategy needs, plus the two every HealBench MCP endpoint must have for a
# model-driven agent (probe, get_crash): their absence means this is not HealBench's endpoint.
REQUIRED_TOOLS = ("claim", "heal", "reraise", "probe", "get_crash")

# A claim answers only when the program first crashes, and an attempt may run for 600 s: the
# read timeout must outlast that, or a slow claim would look like a dead server.
READ_TIMEOUT_SECONDS = 660.0
CONNECT_TIMEOUT_SECONDS = 30.0

# JSON-RPC errors that answer one bad call (an unknown tool, arguments outside the schema); every
# other JSON-RPC error on a tool call means the session itself failed.
_PER_CALL_CODES = (INVALID_PARAMS, METHOD_NOT_FOUND)


class HttpRefusals:
    """Remembers the last 401/403 the endpoint answered. The SDK turns an HTTP error status into a
    generic JSON-RPC error ("Server returned an error response"); this keeps the one fact that
    matters for the message and for stopping the run: the token was refused."""

    def __init__(self) -> None:
        self.status: int | None = None

    async def hook(self, response: httpx2.Response) -> None:
        if response.status_code in (401, 403):
            self.status = response.status_code

    def take(self) -> ErrorReason | None:
        status, self.status = self.status, None
        if status is None:
            return None
        return ErrorReason(reasons.HTTP_401 if status == 401 else reasons.HTTP_403,
                           f"HTTP {status}: the token is missing or wrong, or lacks the agent role", fatal=True)


class McpConnectError(Exception):
    """The MCP session could not be opened."""


class McpGateway:
    def __init__(self, client: Client, refusals: HttpRefusals | None = None) -> None:
        self.client = client
        self.refusals = refusals or HttpRefusals()

    async def tool_names(self) -> list[str]:
        names: list[str] = []
        cursor: str | None = None
        while True:
            page = await self.client.list_tools(cursor=cursor)
            names.extend(tool.name for tool in page.tools)
            cursor = page.next_cursor
            if not cursor:
                return names

    async def begin_attempt(self) -> None:
        pass

    async def end_attempt(self) -> None:
        pass

    async def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        """`call_tool`, with JSON-RPC errors turned into a wire-shaped error result or FatalError,
        so that callers only deal with the contract's two shapes (result, isError result)."""
        try:
            return await self.client.call_tool(tool, arguments)
        except MCPError as error:
            # The contract's own error carried as JSON-RPC error data wins; then a refused token;
            # then the JSON-RPC code says whether only this call or the session failed.
            refused = self.refusals.take()
            carried = reason_in(error) or refused
            if carried is not None and not carried.fatal:
                return _error_result(carried.reason, carried.message)
            if carried is not None:
                raise FatalError(carried) from error
            if error.code in _PER_CALL_CODES:
                return _error_result(f"JSONRPC_{error.code}", error.message)
            raise FatalError(ErrorReason(reasons.TRANSPORT, f"{tool}: JSON-RPC {error.code}: {error.message}",
                                         code=error.code, fatal=True)) from error
        except (httpx2.HTTPError, OSError) as error:
            raise FatalError(ErrorReason(reasons.TRANSPORT, f"{tool}: {type(error).__name__}: {error}",
                                         fatal=True)) from error

    async def claim(self, run: str | None, attempt: str | None, agent: str | None = None) -> Claimed | Failure:
        arguments: dict[str, Any] = {"attempt": attempt} if attempt else {"run": run}
        if agent:
            arguments["agent"] = agent
        return mcp_results.parse_claim(await self.call("claim", arguments))

    async def heal(self, attempt: str, heal: Heal) -> Healed | Failure:
        return mcp_results.parse_heal(await self.call(
            "heal", {"attempt": attempt, "code": heal.code, "resume": heal.resume.value}))

    async def reraise(self, attempt: str, reason: str) -> Step | Failure:
        return mcp_results.parse_reraise(await self.call("reraise", {"attempt": attempt, "reason": reason}))

    async def report_usage(self, attempt: str, usage: Usage) -> Failure | None:
        return mcp_results.parse_plain(await self.call("report_usage", {
            "attempt": attempt, "llm_calls": usage.llm_calls, "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens, "cost_usd": usage.cost_usd, "model": usage.model}))


def _error_result(reason: str, message: str) -> dict[str, Any]:
    """A per-call failure in the wire shape of a tool's error result, so mcp_results reads it."""
    return {"isError": True, "content": [{"type": "text", "text": f"{reason}: {message}"}],
            "structuredContent": {"reason": reason, "message": message, "fatal": False}}


def http_client(token: str | None, refusals: HttpRefusals) -> httpx2.AsyncClient:
    """The HTTP client every MCP request goes through, carrying `Authorization: Bearer TOKEN`."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx2.AsyncClient(headers=headers, event_hooks={"response": [refusals.hook]},
                              timeout=httpx2.Timeout(CONNECT_TIMEOUT_SECONDS, read=READ_TIMEOUT_SECONDS))


@asynccontextmanager
async def connect(url: str, token: str | None, mode: str = "auto") -> AsyncIterator[McpGateway]:
    """An MCP session with HealBench's endpoint at `url` (e.g. http://127.0.0.1:PORT/mcp).
    Raises McpConnectError when the session cannot be opened."""
    refusals = HttpRefusals()
    async with http_client(token, refusals) as http:
        entered = False
        try:
            async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
                entered = True
                yield McpGateway(client, refusals)
        except Exception as error:
            if entered:
                raise                    # the caller's failure, not the session's opening
            found = reason_in(error) or refusals.take()
            raise McpConnectError(str(found) if found else describe(error)) from error


def reason_in(error: BaseException) -> ErrorReason | None:
    """The contract's error carried in a JSON-RPC error's `data` ({reason, message, fatal}), as
    HealBench sends it when it refuses a request before any tool runs (401 for a bad token);
    searched through the exception groups the SDK's task groups raise."""
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            if (found := reason_in(inner)) is not None:
                return found
        return None
    if isinstance(error, MCPError) and isinstance(error.data, dict) and error.data.get("reason"):
        data = error.data
        return ErrorReason(reason=str(data["reason"]), message=str(data.get("message") or error.message),
                           code=error.code, fatal=bool(data.get("fatal", True)))
    if error.__cause__ is not None and error.__cause__ is not error:
        return reason_in(error.__cause__)
    return None


def describe(error: BaseException) -> str:
    """One line for an exception; the SDK's task groups wrap failures in exception groups."""
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(describe(inner) for inner in error.exceptions)
    return f"{type(error).__name__}: {error}"
