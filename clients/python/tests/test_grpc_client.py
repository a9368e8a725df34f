"""The gRPC client end to end against a scripted AgentGatewayService servicer on a real local gRPC server:
generated stubs, bearer metadata, one stream per attempt, per-message errors in `error`, fatal ends
as a status with an ErrorInfo in its trailer, and the command's output and exit status."""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc
import pytest
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2

from fakes import AttemptState, FakeHealBench, three_attempts
from healbench_client import cli, reasons, stubs
from healbench_client.grpc_gateway import step_of
from healbench_client.grpc_session import GatewaySession, StreamClosed, open_channel
from healbench_client.model import Finished
from healbench_client.status import STATUS_DETAILS_KEY, ErrorReason, reason_of

STUBS = stubs.load()
pb = STUBS.pb


def rpc_status(error: ErrorReason) -> status_pb2.Status:
    detail = any_pb2.Any()
    detail.Pack(error_details_pb2.ErrorInfo(reason=error.reason, domain=reasons.DOMAIN))
    return status_pb2.Status(code=error.code or 9, message=error.message, details=[detail])


def pb_step(data: dict[str, Any]) -> Any:
    if data["state"] == "crashed":
        return pb.Step(crash=pb.Crash(heal_point=data["heal_point"], exception_type=data["exception_type"],
                                      file="prog.py", line=3, statement="x = d['k']"))
    return pb.Step(finished=pb.Finished(proceeded=data["proceeded"], exit_cause="EXITED",
                                        heal_points=data["heal_point"]))


class Servicer(STUBS.grpc.AgentGatewayServiceServicer):
    """The contract as agent.proto states it, over FakeHealBench."""

    def __init__(self, fake: FakeHealBench) -> None:
        self.fake = fake
        self.streams = 0
        self.metadata: list[dict[str, str]] = []

    def _abort(self, context: grpc.ServicerContext, error: ErrorReason, code: grpc.StatusCode) -> None:
        status = rpc_status(ErrorReason(error.reason, error.message, code.value[0]))
        context.set_trailing_metadata([(STATUS_DETAILS_KEY, status.SerializeToString())])
        context.abort(code, error.message)

    def Connect(self, requests: Iterator[Any], context: grpc.ServicerContext) -> Iterator[Any]:
        self.streams += 1
        metadata = dict(context.invocation_metadata())
        self.metadata.append(metadata)
        if metadata.get("authorization") != f"Bearer {self.fake.token}":
            reason = reasons.TOKEN_INVALID if "authorization" in metadata else reasons.TOKEN_REQUIRED
            self._abort(context, ErrorReason(reason, "no valid token"), grpc.StatusCode.UNAUTHENTICATED)
        state: AttemptState | None = None
        for request in requests:
            def answer(request: Any = request, **result: Any) -> Any:
                return pb.ConnectResponse(request_id=request.request_id, **result)

            def failed(error: ErrorReason, answer: Any = answer) -> Any:
                if error.fatal:
                    self._abort(context, error, grpc.StatusCode.ABORTED)
                return answer(error=rpc_status(error))

            action = request.WhichOneof("action")
            if action == "claim":
                if state is not None:
                    yield failed(ErrorReason(reasons.ALREADY_CLAIMED, "claimed already"))
                    continue
                target = request.claim.WhichOneof("target")
                claimed = self.fake.claim(request.claim.run if target == "run" else None,
                                          request.claim.attempt if target == "attempt" else None,
                                          request.claim.agent)
                if isinstance(claimed, ErrorReason):
                    yield failed(claimed)
                    continue
                state = claimed
                yield answer(claim=pb.ClaimResponse(attempt=state.spec.name, instance_id=state.spec.instance_id,
                                                    lease_seconds=60, step=pb_step(state.step())))
            elif action is None:
                yield failed(ErrorReason(reasons.ARGUMENT_INVALID, "a request with no action"))
            elif state is None:
                yield failed(ErrorReason(reasons.NOT_CLAIMED, "claim first"))
            elif action == "heal":
                resume = pb.Resume.Name(request.heal.resume).removeprefix("RESUME_").lower()
                result = self.fake.heal(state, request.heal.code, resume)
                if isinstance(result, ErrorReason):
                    yield failed(result)
                    continue
                yield answer(heal=pb.HealResponse(changed=result["changed"], step=pb_step(result)))
            elif action == "reraise":
                result = self.fake.reraise(state, request.reraise.reason)
                if isinstance(result, ErrorReason):
                    yield failed(result)
                    continue
                yield answer(reraise=pb.ReraiseResponse(step=pb_step(result)))
            elif action == "report_usage":
                usage = request.report_usage
                error = self.fake.report_usage(state, {"llm_calls": usage.llm_calls, "model": usage.model,
                                                       "cost_usd": usage.cost_usd})
                yield failed(error) if error else answer(report_usage=pb.ReportUsageResponse())
            else:
                yield failed(ErrorReason(reasons.ARGUMENT_INVALID, f"{action} is not scripted"))
                continue
            if state is not None and state.step()["state"] == "finished":
                return          # "the stream closes after this response"


@pytest.fixture
def gateway() -> Iterator[tuple[FakeHealBench, Servicer, str]]:
    fake = FakeHealBench(three_attempts())
    servicer = Servicer(fake)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    STUBS.grpc.add_AgentGatewayServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield fake, servicer, f"127.0.0.1:{port}"
    finally:
        server.stop(grace=None)


def test_the_command_heals_every_attempt_and_prints_json_lines(gateway, capsys) -> None:  # type: ignore[no-untyped-def]
    fake, servicer, endpoint = gateway
    status = cli.main(["grpc", "--endpoint", endpoint, "--token", "secret", "--run", "runs/r1", "--json"])
    out = capsys.readouterr().out.splitlines()
    assert status == 0
    assert json.loads(out[-1]) == {"attempts": 3, "heals_applied": 3, "proceeded": 2, "errors": 0}
    assert [json.loads(line) for line in out[:-1]] == [
        {"attempt": f"runs/r1/attempts/a{n}", "instance_id": f"inst-{n}", "heal_points": points, "heals_applied": 1,
         "proceeded": proceeded}
        for n, points, proceeded in ((1, 1, True), (2, 1, True), (3, 2, False))]
    # The resumes went over the wire as the proto's enum, in the strategy's order.
    assert [(e[2], e[3]) for e in fake.heals() if e[1] == "runs/r1/attempts/a2"] == [
        ("pass", "skip"), ("_return_ = None", "return")]
    assert servicer.streams == 4          # one per attempt, and the one that found nothing to claim
    assert {m["authorization"] for m in servicer.metadata} == {"Bearer secret"}
    assert [u["model"] for _, u in fake.usage] == ["simple-strategy"] * 3
    assert set(fake.agents) == {""}                # no --agent: no name sent


def test_a_wrong_token_is_fatal_and_stops_at_once(gateway, capsys) -> None:  # type: ignore[no-untyped-def]
    fake, servicer, endpoint = gateway
    status = cli.main(["grpc", "--endpoint", endpoint, "--token", "wrong", "--run", "runs/r1", "--json"])
    captured = capsys.readouterr()
    assert status == 1
    assert json.loads(captured.out.splitlines()[-1]) == {"attempts": 0, "heals_applied": 0, "proceeded": 0, "errors": 1}
    assert "TOKEN_INVALID" in captured.err and servicer.streams == 1


def test_a_lapsed_claim_ends_the_stream_with_its_reason_and_the_exit_status_says_so(gateway, capsys) -> None:  # type: ignore[no-untyped-def]
    fake, _, endpoint = gateway
    fake.attempts[1].fatal_after = (1, reasons.CLAIM_LAPSED)
    status = cli.main(["grpc", "--endpoint", endpoint, "--token", "secret", "--run", "runs/r1", "--json"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert status == 1
    assert lines[1]["errors"] == ["CLAIM_LAPSED"]
    assert lines[-1] == {"attempts": 3, "heals_applied": 2, "proceeded": 1, "errors": 1}


def test_max_attempts_and_a_named_attempt(gateway, capsys) -> None:  # type: ignore[no-untyped-def]
    fake, _, endpoint = gateway
    status = cli.main(["grpc", "--endpoint", endpoint, "--token", "secret", "--run", "r1",
                       "--attempt", "runs/r1/attempts/a2", "--max-attempts", "2", "--agent", "ref-client"])
    out = capsys.readouterr().out.splitlines()
    assert status == 0
    assert [line.split()[0] for line in out] == ["runs/r1/attempts/a2", "runs/r1/attempts/a1"]
    assert out[0] == "runs/r1/attempts/a2 instance=inst-2 heal_points=1 heals_applied=1 proceeded=true"
    assert fake.agents == ["ref-client", "ref-client"]


def test_nothing_listening_is_fatal(capsys) -> None:  # type: ignore[no-untyped-def]
    status = cli.main(["grpc", "--endpoint", "127.0.0.1:1", "--token", "t", "--run", "runs/r1", "--max-attempts", "1"])
    assert status == 1 and "UNAVAILABLE" in capsys.readouterr().err


def test_the_session_sends_deliberately_bad_requests_and_reads_each_answer(gateway) -> None:  # type: ignore[no-untyped-def]
    fake, _, endpoint = gateway
    channel = open_channel(endpoint)
    with GatewaySession(STUBS, channel, "secret") as session:
        no_action = session.call(session.request())
        assert no_action.error.message == "a request with no action"
        early = session.action("heal", code="pass", resume=pb.RESUME_SKIP)
        assert early.request_id == "r2" and early.HasField("error")
        claimed = session.call(session.request("claim", request_id="mine", run="runs/r1"))
        assert claimed.request_id == "mine" and claimed.claim.step.crash.heal_point == 1
        again = session.action("claim", run="runs/r1")
        assert [reason_of(r.error) for r in (no_action, early, again)] == [
            "ARGUMENT_INVALID", "NOT_CLAIMED", "ALREADY_CLAIMED"]
        done = session.action("heal", code="pass", resume=pb.RESUME_SKIP)
        assert done.heal.step.finished.proceeded
        with pytest.raises(StreamClosed) as closed:
            session.action("get_crash", timeout=5)
        assert closed.value.error is None          # the server ended the stream OK after `finished`
    channel.close()


def test_a_fatal_end_is_seen_with_its_reason_by_the_session(gateway) -> None:  # type: ignore[no-untyped-def]
    fake, _, endpoint = gateway
    channel = open_channel(endpoint)
    with GatewaySession(STUBS, channel, None) as session:   # no token at all
        with pytest.raises(StreamClosed) as closed:
            session.action("claim", run="runs/r1", timeout=5)
    assert closed.value.reason == "TOKEN_REQUIRED"
    assert closed.value.error.code == grpc.StatusCode.UNAUTHENTICATED.value[0]
    channel.close()


def test_the_exit_cause_reads_as_the_mcp_gateway_spells_it() -> None:
    assert step_of(pb.Step(finished=pb.Finished(proceeded=True, exit_cause="TIMEOUT"))) == Finished(True, "timeout")
    assert step_of(pb.Step(finished=pb.Finished(proceeded=False))) == Finished(False, "")
    assert step_of(pb.Step(finished=pb.Finished(exit_cause=99))) == Finished(False, "unknown (99)")
