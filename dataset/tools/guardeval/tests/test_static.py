"""The static stage against an in-process GuardService (the servicer generated from guard.proto)."""

from __future__ import annotations

import base64
import json
import socket
from collections.abc import Callable, Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from guardeval import servicetoken, static

GUARD = static.guard_stubs()
POLICY = {"operations": {"open": {"category": "file_write"}}}
MODULE_BYTES = 100_000  # one module's AST JSON; 60 of them make a request of several MB


class FakeGuard(GUARD.grpc.GuardServiceServicer):
    """Records each AnalyzeHeal call; answers with `answer` (a response as a dict), or aborts with `abort`."""

    def __init__(self, answer: dict[str, Any], abort: tuple[grpc.StatusCode, str] | None = None) -> None:
        self.answer = answer
        self.abort = abort
        self.requests: list[Any] = []
        self.metadata: list[dict[str, str]] = []

    def AnalyzeHeal(self, request: Any, context: grpc.ServicerContext) -> Any:  # noqa: N802 (the generated name)
        self.requests.append(request)
        self.metadata.append(dict(context.invocation_metadata()))
        if self.abort is not None:
            context.abort(*self.abort)
        return json_format.ParseDict(self.answer, GUARD.pb.AnalyzeHealResponse())


Serve = Callable[[FakeGuard], str]  # starts a server for a fake; its address


@pytest.fixture
def serve() -> Iterator[Serve]:
    """Servers on 127.0.0.1, stopped after the test."""
    servers: list[grpc.Server] = []

    def start(fake: FakeGuard) -> str:
        # Like guard-service, it takes requests larger than gRPC's default 4 MiB.
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=2),
                             options=[("grpc.max_receive_message_length", 64 * 1024 * 1024)])
        GUARD.grpc.add_GuardServiceServicer_to_server(fake, server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        servers.append(server)
        return f"127.0.0.1:{port}"

    yield start
    for server in servers:
        server.stop(grace=None)


def analysis() -> dict[str, Any]:
    """A heal_analysis message as healrt sends it, with several MB of modules."""
    modules = [{"file": f"m{i}.py", "module": f"m{i}", "ast": {"_type": "Module", "body": ["x" * MODULE_BYTES]}}
               for i in range(60)]
    return {"type": "heal_analysis", "id": 1, "heal_point": 2,
            "delta": [{"location": "attr:job.out", "kind": "both", "before": None, "after": "'v'", "also": ["view"]}],
            "delta_truncated": False,
            "crash_point": {"file": "m0.py", "function": "run", "qualname": "Job.run", "line": 7, "col": 4,
                            "end_line": 7, "end_col": 20, "kind": "assign", "resume": "retry",
                            "callers": [{"file": "m1.py", "function": "main", "qualname": "main", "line": 3,
                                         "col": 0, "end_line": 3, "end_col": 9, "through_library": True}]},
            "modules": modules, "modules_truncated": True}


def claims(token: str) -> dict[str, Any]:
    body = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))


def test_the_analysis_goes_out_as_an_analyze_heal_request_and_the_answer_comes_back(serve: Serve) -> None:
    fake = FakeGuard({"verdict": "TAINTED", "source": "attr:job.out",
                      "witness": [{"file": "m0.py", "line": 8, "description": "open"}],
                      "sink": {"op": "open", "category": "file_write", "key_input": "file", "file": "m0.py", "line": 8},
                      "functions_analyzed": 3})
    stage = static.StaticStage(serve(fake), key=servicetoken.new_key())
    sent = analysis()
    try:
        answer = stage.analyze(sent, "job.out = 'v'", POLICY)
    finally:
        stage.close()

    [request] = fake.requests
    assert request.ByteSize() > 5 * 1024 * 1024
    assert (request.heal_code, request.heal_point, request.delta_truncated, request.modules_truncated) == (
        "job.out = 'v'", 2, False, True)
    [delta] = request.delta
    assert (delta.location, delta.kind, delta.before, delta.after, list(delta.also)) == (
        "attr:job.out", "both", "", "'v'", ["view"])  # healrt's None (no value before) is the unset field
    crash = request.crash_point
    resume = crash.DESCRIPTOR.fields_by_name["resume"].enum_type.values_by_number[crash.resume].name
    assert (crash.file, crash.qualname, crash.line, crash.end_col, crash.kind, resume) == (
        "m0.py", "Job.run", 7, 20, "assign", "RETRY")
    [caller] = crash.callers
    assert (caller.file, caller.function, caller.line, caller.end_col, caller.through_library) == ("m1.py", "main", 3, 9, True)
    assert [(m.file, m.module) for m in request.modules] == [(f"m{i}.py", f"m{i}") for i in range(60)]
    assert json.loads(request.modules[59].ast_json) == sent["modules"][59]["ast"]
    assert json.loads(request.policy_json) == POLICY

    token = claims(fake.metadata[0][servicetoken.HEADER])
    assert (token["sub"], token["aud"]) == (static.CALLER, "healbench.guard.v1.GuardService")

    assert answer["verdict"] == "TAINTED" and answer["source"] == "attr:job.out"
    assert answer["sink"] == {"op": "open", "category": "file_write", "key_input": "file", "file": "m0.py", "line": 8}
    assert answer["witness"] == [{"file": "m0.py", "line": 8, "description": "open"}]


@pytest.mark.parametrize(("verdict", "expected"), [("CLEAN", "CLEAN"), ("UNKNOWN", "UNKNOWN"),
                                                   ("STATIC_VERDICT_UNSPECIFIED", "UNSPECIFIED"),
                                                   (7, "UNSPECIFIED")])  # a number this proto does not name
def test_verdicts_are_named_as_the_suite_names_them(serve: Serve, verdict: str | int, expected: str) -> None:
    stage = static.StaticStage(serve(FakeGuard({"verdict": verdict})))
    try:
        assert stage.analyze(analysis(), "x = 1", POLICY)["verdict"] == expected
    finally:
        stage.close()


def test_an_rpc_error_is_an_error_verdict_with_its_status(serve: Serve) -> None:
    fake = FakeGuard({}, abort=(grpc.StatusCode.UNAUTHENTICATED, "no valid service token"))
    stage = static.StaticStage(serve(fake))
    try:
        answer = stage.analyze(analysis(), "x = 1", POLICY)
    finally:
        stage.close()
    assert answer == {"verdict": "ERROR", "error": "UNAUTHENTICATED: no valid service token"}
    assert servicetoken.HEADER not in fake.metadata[0]  # no key, no token


# A key the proto lacks is refused, not dropped; a resume it does not name is refused, not taken for a skip.
@pytest.mark.parametrize(("key", "value", "named"), [("column", 4, "column"), ("resume", "sideways", "sideways")])
def test_a_crash_point_guard_proto_cannot_carry_is_refused_before_any_call(serve: Serve, key: str, value: object,
                                                                           named: str) -> None:
    fake = FakeGuard({"verdict": "CLEAN"})
    stage = static.StaticStage(serve(fake))
    sent = analysis()
    sent["crash_point"][key] = value
    try:
        with pytest.raises(json_format.ParseError, match=named):
            stage.analyze(sent, "x = 1", POLICY)
    finally:
        stage.close()
    assert fake.requests == []


def test_the_probe_makes_the_stage_available_only_on_a_verdict(serve: Serve, tmp_path: Path) -> None:
    answering = static.open_stage(serve(FakeGuard({"verdict": "CLEAN"})), POLICY, tmp_path)
    silent = static.open_stage(serve(FakeGuard({})), POLICY, tmp_path)
    try:
        assert answering.available and answering.reason == ""
        assert not silent.available and "answered UNSPECIFIED" in silent.reason
    finally:
        answering.close()


def test_an_unavailable_guard_is_reported_not_faked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(servicetoken.KEY_ENV, raising=False)
    closed = socket.create_server(("127.0.0.1", 0))
    address = f"127.0.0.1:{closed.getsockname()[1]}"
    closed.close()
    stage = static.open_stage(address, POLICY, tmp_path)
    assert not stage.available and "gives no verdict (UNAVAILABLE" in stage.reason
    assert servicetoken.KEY_ENV in stage.reason  # the hint: this guard takes calls with a service token only
