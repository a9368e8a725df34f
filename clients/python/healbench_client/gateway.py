"""The interface the runner drives: HealBench's agent endpoint as a handful of async calls.

gRPC (`grpc_gateway.GrpcGateway`) and MCP (`mcp_gateway.McpGateway`) each adapt their wire form to
it, so the attempt loop, the waiting and the counting exist once (`runner`). Every call returns the
result or a `model.Failure` (a per-message error) and raises `model.FatalError` when the attempt
cannot go on.
"""

from __future__ import annotations

from typing import Protocol

from healbench_client.model import Claimed, Failure, Healed, Step, Usage
from healbench_client.strategy import Heal


class Gateway(Protocol):
    async def begin_attempt(self) -> None:
        """Before a claim: gRPC opens a stream (one per attempt); MCP has nothing to do."""

    async def end_attempt(self) -> None:
        """After an attempt (or a claim that found nothing): gRPC closes its stream."""

    async def claim(self, run: str | None, attempt: str | None, agent: str | None = None) -> Claimed | Failure:
        """Claims the next queued attempt of `run` (`runs/R`), or the named `attempt`, as the agent
        `agent` (a run made for `external:NAME` is claimed only by NAME; None sends no name)."""

    async def heal(self, attempt: str, heal: Heal) -> Healed | Failure: ...

    async def reraise(self, attempt: str, reason: str) -> Step | Failure: ...

    async def report_usage(self, attempt: str, usage: Usage) -> Failure | None: ...
