"""The gRPC adapter: `Gateway` over GatewaySession, one Connect stream per attempt.

The stream is the claim (closing it gives the attempt up), so each attempt gets its own stream, as
the contract's "one bidirectional stream drives one attempt" says. GatewaySession is synchronous
(grpcio's streaming iterators are); its calls run in a worker thread so the async runner is not
blocked while a claim waits for the program's first crash.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc

from healbench_client import reasons
from healbench_client.grpc_session import GatewaySession, ResponseMismatch, StreamClosed, open_channel
from healbench_client.model import Claimed, Crash, Failure, FatalError, Finished, Healed, Step, Usage
from healbench_client.status import ErrorReason, from_status
from healbench_client.strategy import Heal
from healbench_client.stubs import Stubs


def step_of(pb_step: Any) -> Step:
    """A proto `Step` (or a bare `Crash`) as a model Step."""
    kind = pb_step.WhichOneof("state")
    if kind == "finished":
        return Finished(proceeded=pb_step.finished.proceeded, exit_cause=exit_cause_of(pb_step.finished))
    if kind == "crash":
        return crash_of(pb_step.crash)
    # An empty Step breaks the contract; reporting it as a fatal error beats guessing either way.
    raise FatalError(ErrorReason(reasons.UNKNOWN, "a response carried a Step with neither crash nor finished"))


def exit_cause_of(finished: Any) -> str:
    """The exit cause in lower case, as the MCP gateway spells it; "" when unset."""
    value = finished.exit_cause
    if value == 0:
        return ""
    known = finished.DESCRIPTOR.fields_by_name["exit_cause"].enum_type.values_by_number.get(value)
    # A newer server may know causes this client's proto does not: say so rather than fail the attempt's end.
    return known.name.lower() if known else f"unknown ({value})"


def crash_of(crash: Any) -> Crash:

    return Crash(heal_point=crash.heal_point, exception_type=crash.exception_type,
                 exception_message=crash.exception_message, file=crash.file, line=crash.line,
                 statement=crash.statement)


class GrpcGateway:
    def __init__(self, stubs: Stubs, endpoint: str, token: str | None) -> None:
        self.stubs = stubs
        self.pb = stubs.pb
        self.token = token
        self.channel: grpc.Channel = open_channel(endpoint)
        self.session: GatewaySession | None = None

    async def begin_attempt(self) -> None:
        self.session = GatewaySession(self.stubs, self.channel, self.token)

    async def end_attempt(self) -> None:
        if self.session is not None:
            session, self.session = self.session, None
            await asyncio.to_thread(session.close)

    def close(self) -> None:
        self.channel.close()

    async def _call(self, action: str, expected: str, *, empty_ok: bool = False, **fields: Any) -> Any:
        """One request; the response's `expected` result, or a Failure. Stream ends are FatalError.
        `empty_ok`: the result is an empty message, which a server may leave unset."""
        assert self.session is not None, "begin_attempt() first"
        session = self.session
        try:
            response = await asyncio.to_thread(session.action, action, **fields)
        except StreamClosed as closed:
            raise FatalError(closed.error or ErrorReason(
                reasons.UNKNOWN, f"the stream ended (OK) instead of answering {action}", fatal=True)) from None
        except ResponseMismatch as mismatch:
            raise FatalError(ErrorReason(reasons.UNKNOWN, str(mismatch), fatal=True)) from None
        if response.HasField("error"):
            return Failure(from_status(response.error))
        which = response.WhichOneof("result")
        if which is None and empty_ok:
            return None
        if which != expected:
            raise FatalError(ErrorReason(
                reasons.UNKNOWN, f"{action} answered with {which!r}, not {expected!r}",
                fatal=True))
        return getattr(response, expected)

    async def claim(self, run: str | None, attempt: str | None, agent: str | None = None) -> Claimed | Failure:
        fields: dict[str, Any] = {"attempt": attempt} if attempt else {"run": run}
        if agent:
            fields["agent"] = agent      # only when given: an empty name means "any agent" anyway
        result = await self._call("claim", "claim", **fields)
        if isinstance(result, Failure):
            return result
        return Claimed(attempt=result.attempt, instance_id=result.instance_id, step=step_of(result.step),
                       repeat=result.repeat, lease_seconds=result.lease_seconds)

    async def heal(self, attempt: str, heal: Heal) -> Healed | Failure:
        # The stream is the attempt: gRPC requests do not name it.
        result = await self._call("heal", "heal", code=heal.code,
                                  resume=self.pb.Resume.Value(heal.resume.grpc_name))
        if isinstance(result, Failure):
            return result
        return Healed(step=step_of(result.step), changed=tuple(result.changed))

    async def reraise(self, attempt: str, reason: str) -> Step | Failure:
        result = await self._call("reraise", "reraise", reason=reason)
        return result if isinstance(result, Failure) else step_of(result.step)

    async def report_usage(self, attempt: str, usage: Usage) -> Failure | None:
        result = await self._call("report_usage", "report_usage", empty_ok=True, llm_calls=usage.llm_calls,
                                  input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                                  cost_usd=usage.cost_usd, model=usage.model)
        return result if isinstance(result, Failure) else None
