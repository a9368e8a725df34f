"""The MCP client end to end against a scripted server built with the same SDK's MCPServer, served
over streamable HTTP by uvicorn on a local port, behind a bearer-token check: the tool listing and
check, the tool arguments, isError results with structuredContent, and the command's output."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent

from fakes import FakeHealBench, three_attempts
from healbench_client import cli, reasons
from healbench_client.status import ErrorReason


def result(data: dict[str, Any] | ErrorReason | None) -> CallToolResult:
    if isinstance(data, ErrorReason):
        body = {"reason": data.reason, "message": data.message, "fatal": data.fatal}
        return CallToolResult(content=[TextContent(type="text", text=str(data))], structured_content=body,
                              is_error=True)
    body = data or {}
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(body))], structured_content=body)


ALL_TOOLS = ("claim", "get_crash", "probe", "heal", "reraise", "report_usage")


def healbench_mcp(fake: FakeHealBench, calls: list[tuple[str, dict[str, Any]]], *,
                  tools: tuple[str, ...] = ALL_TOOLS) -> MCPServer:
    server = MCPServer("fake-healbench")

    def claim(run: str | None = None, attempt: str | None = None, agent: str | None = None) -> CallToolResult:
        calls.append(("claim", {"run": run, "attempt": attempt, "agent": agent}))
        state = fake.claim(run, attempt, agent or "")
        if isinstance(state, ErrorReason):
            return result(state)
        return result({"attempt": state.spec.name, "instance_id": state.spec.instance_id, "repeat": 0,
                       "lease_seconds": 60, **{k: v for k, v in state.step().items()}})

    def heal(attempt: str, code: str, resume: str) -> CallToolResult:
        calls.append(("heal", {"attempt": attempt, "code": code, "resume": resume}))
        return result(fake.heal(fake.live[attempt], code, resume))

    def reraise(attempt: str, reason: str) -> CallToolResult:
        calls.append(("reraise", {"attempt": attempt, "reason": reason}))
        step = fake.reraise(fake.live[attempt], reason)
        return result(step)

    def report_usage(attempt: str, llm_calls: int = 0, input_tokens: int = 0, output_tokens: int = 0,
                     cost_usd: float = 0.0, model: str = "") -> CallToolResult:
        usage = {"llm_calls": llm_calls, "input_tokens": input_tokens, "output_tokens": output_tokens,
                 "cost_usd": cost_usd, "model": model}
        calls.append(("report_usage", {"attempt": attempt, **usage}))
        return result(fake.report_usage(fake.live[attempt], usage))

    def get_crash(attempt: str) -> CallToolResult:
        return result(ErrorReason(reasons.ARGUMENT_INVALID, "not scripted"))

    def probe(attempt: str, code: str, timeout_s: float = 20.0) -> CallToolResult:
        return result(ErrorReason(reasons.ARGUMENT_INVALID, "not scripted"))

    for name, function in (("claim", claim), ("heal", heal), ("reraise", reraise), ("report_usage", report_usage),
                           ("get_crash", get_crash), ("probe", probe)):
        if name in tools:
            server.add_tool(function, name=name)
    return server


# HealBench refuses a bad token with HTTP 401 and a JSON-RPC error whose data is the contract's
# {reason, message, fatal}; a proxy in front of it may answer a bare 401. Both must read as a
# refused token.
JSONRPC_REFUSAL = json.dumps({"jsonrpc": "2.0", "id": None, "error": {
    "code": -32001, "message": "TOKEN_INVALID: the token could not be verified",
    "data": {"reason": "TOKEN_INVALID", "message": "the token could not be verified", "fatal": True}}}).encode()
BARE_REFUSAL = b"<html>401 Unauthorized</html>"


def with_bearer(app: Any, token: str, seen: list[str], refusal: bytes = JSONRPC_REFUSAL) -> Any:
    """The endpoint's token check, as a plain ASGI wrapper in front of the MCP app."""

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            authorization = dict(scope["headers"]).get(b"authorization", b"").decode()
            seen.append(authorization)
            if authorization != f"Bearer {token}":
                kind = b"application/json" if refusal.startswith(b"{") else b"text/html"
                await send({"type": "http.response.start", "status": 401, "headers": [(b"content-type", kind)]})
                await send({"type": "http.response.body", "body": refusal})
                return
        await app(scope, receive, send)

    return guarded


class Served:
    def __init__(self, fake: FakeHealBench, refusal: bytes = JSONRPC_REFUSAL, **options: Any) -> None:
        self.fake = fake
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.authorizations: list[str] = []
        app = healbench_mcp(fake, self.calls, **options).streamable_http_app()
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.server = uvicorn.Server(uvicorn.Config(with_bearer(app, fake.token, self.authorizations, refusal),
                                                    host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def __enter__(self) -> Served:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the fake MCP server did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture
def served() -> Iterator[Served]:
    with Served(FakeHealBench(three_attempts())) as running:
        yield running


def test_the_command_lists_the_tools_and_heals_every_attempt(served: Served, capsys) -> None:  # type: ignore[no-untyped-def]
    status = cli.main(["mcp", "--url", served.url, "--token", "secret", "--run", "runs/r1", "--json", "--list-tools"])
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines()]
    assert status == 0, captured.err
    assert sorted(lines[0]["tools"]) == ["claim", "get_crash", "heal", "probe", "report_usage", "reraise"]
    assert lines[-1] == {"attempts": 3, "heals_applied": 3, "proceeded": 2, "errors": 0}
    assert [(line["attempt"], line["heal_points"], line["proceeded"]) for line in lines[1:-1]] == [
        ("runs/r1/attempts/a1", 1, True), ("runs/r1/attempts/a2", 1, True), ("runs/r1/attempts/a3", 2, False)]
    # The tools got the contract's arguments: the attempt's name, the MCP resume spelling.
    assert ("heal", {"attempt": "runs/r1/attempts/a2", "code": "_return_ = None", "resume": "return"}) in served.calls
    assert ("claim", {"run": "runs/r1", "attempt": None, "agent": None}) in served.calls
    usage = [args for name, args in served.calls if name == "report_usage"]
    assert usage[0] == {"attempt": "runs/r1/attempts/a1", "llm_calls": 0, "input_tokens": 0, "output_tokens": 0,
                        "cost_usd": 0.0, "model": "simple-strategy"} and len(usage) == 3
    assert served.authorizations and set(served.authorizations) == {"Bearer secret"}


@pytest.mark.parametrize(("refusal", "said"), [(JSONRPC_REFUSAL, "TOKEN_INVALID: the token could not be verified"),
                                              (BARE_REFUSAL, "HTTP_401: HTTP 401")])
def test_a_wrong_token_fails_the_command_naming_the_refusal(refusal: bytes, said: str, capsys) -> None:  # type: ignore[no-untyped-def]
    with Served(FakeHealBench(three_attempts()), refusal) as running:
        status = cli.main(["mcp", "--url", running.url, "--token", "nope", "--run", "runs/r1", "--json"])
        assert status == 1
        err = capsys.readouterr().err
        assert "cannot open an MCP session" in err and said in err, err
        assert running.calls == [] and running.authorizations and set(running.authorizations) == {"Bearer nope"}


def test_a_server_without_the_healbench_tools_is_refused(capsys) -> None:  # type: ignore[no-untyped-def]
    with Served(FakeHealBench(three_attempts()), tools=("claim", "heal", "reraise", "report_usage")) as running:
        status = cli.main(["mcp", "--url", running.url, "--token", "secret", "--run", "runs/r1"])
        assert status == 1
        assert "lacks the tools probe, get_crash" in capsys.readouterr().err
        assert running.calls == []


def test_a_fatal_tool_error_is_counted_and_exits_1(served: Served, capsys) -> None:  # type: ignore[no-untyped-def]
    served.fake.attempts[0].fatal_after = (1, reasons.BUDGET_EXHAUSTED)
    status = cli.main(["mcp", "--url", served.url, "--token", "secret", "--run", "runs/r1", "--json",
                       "--protocol", "legacy", "--agent", "ref-client"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert status == 1
    assert lines[0]["errors"] == ["BUDGET_EXHAUSTED"]
    assert {args["agent"] for name, args in served.calls if name == "claim"} == {"ref-client"}
    assert lines[-1] == {"attempts": 3, "heals_applied": 2, "proceeded": 1, "errors": 1}
