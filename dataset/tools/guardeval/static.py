"""The static stage: guard-service's AnalyzeHeal on the heal_analysis payload each case's run produced.

Where the guard comes from, in order: `--guard HOST:PORT` (or $HEALBENCH_GUARD_ADDRESS), a
guard-service already serving; else (`--guard auto`) the built guard-service
(guard-service/target/quarkus-app/quarkus-run.jar) started once on a free port and stopped at the
end. The stage is available only when AnalyzeHeal answers a probe request with a verdict; else it
is reported `unavailable` with the reason, and no case gets a static verdict.

The messages and the stub are generated from guard.proto (healbench_client.stubs, in the client
venv that clients/python/env.sh builds): the proto is the one statement of the contract.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import socket
import subprocess
import time
from pathlib import Path
from typing import Any, cast

import grpc
from google.protobuf import json_format
from hbdata import REPO_ROOT as REPO
from hbdata import healrt_module
from healbench_client import stubs

from . import servicetoken

module_json = healrt_module("astexport").module_json

GUARD_PROTO = Path("healbench") / "guard" / "v1" / "guard.proto"
CALLER = "guard-eval"  # the `sub` of this suite's service tokens
JAR = REPO / "guard-service" / "target" / "quarkus-app" / "quarkus-run.jar"
START_TIMEOUT_S = 120
CALL_TIMEOUT_S = 120
# A request carries up to healrt's 8 MiB of module JSON: no client-side cap below the server's.
_CHANNEL_OPTIONS = [("grpc.max_send_message_length", -1), ("grpc.max_receive_message_length", -1),
                    # The guard is this machine's or a named address: never an http_proxy's.
                    ("grpc.enable_http_proxy", 0)]


@functools.cache
def guard_stubs() -> stubs.Stubs:
    """guard.proto's generated modules (generated into the client cache on first use)."""
    return stubs.load(proto=GUARD_PROTO)


def service_name() -> str:
    """The service's full name: the audience of this suite's service tokens."""
    return str(guard_stubs().pb.DESCRIPTOR.services_by_name["GuardService"].full_name)


def verdict_name(value: int) -> str:
    """TAINTED, CLEAN or UNKNOWN; UNSPECIFIED for the zero value and for a number this proto does not
    name (a newer guard-service's)."""
    verdicts = guard_stubs().pb.StaticVerdict
    name = verdicts.Name(value) if value in verdicts.values() else "STATIC_VERDICT_UNSPECIFIED"
    return name.removeprefix("STATIC_VERDICT_")


def request_of(analysis: dict[str, Any], heal_code: str, policy: dict[str, Any]) -> dict[str, Any]:
    """An AnalyzeHealRequest (as a dict in its proto field names) from healrt's heal_analysis message."""
    return {
        "heal_code": heal_code,
        "heal_point": analysis.get("heal_point") or 0,
        "delta": analysis.get("delta") or [],
        "delta_truncated": bool(analysis.get("delta_truncated")),
        "crash_point": crash_point_of(analysis.get("crash_point") or {}),
        "modules": [{"file": m.get("file"), "module": m.get("module"),
                     "ast_json": json.dumps(m.get("ast"), separators=(",", ":"), ensure_ascii=False)}
                    for m in analysis.get("modules") or []],
        "modules_truncated": bool(analysis.get("modules_truncated")),
        "policy_json": json.dumps(policy),
    }


def crash_point_of(point: dict[str, Any]) -> dict[str, Any]:
    """The crash point with its resume as the proto's ResumeMode names it: healrt spells it "skip", "retry"
    or "return"; an unknown spelling stays as it is, so that json_format refuses it rather than analysing it
    as a skip."""
    resume = point.get("resume")
    return {**point, "resume": resume.upper()} if resume in ("skip", "retry", "return") else point


def _probe_request(policy: dict[str, Any]) -> dict[str, Any]:
    """A heal of `path` right before `open(path, 'w')`: any working analysis answers it."""
    source = "def save(path):\n    path = path.strip()\n    open(path, 'w').close()\n"
    return {"heal_code": "path = 'x'", "heal_point": 1,
            "delta": [{"location": "name:path", "kind": "both", "before": "'a'", "after": "'x'"}],
            "crash_point": {"file": "probe.py", "function": "save", "qualname": "save", "line": 2, "col": 4,
                            "end_line": 2, "end_col": 23, "kind": "assign", "resume": "SKIP"},
            "modules": [{"file": "probe.py", "module": "probe",
                         "ast_json": json.dumps(module_json(source, "probe.py"))}],
            "policy_json": json.dumps(policy)}


@dataclasses.dataclass
class StaticStage:
    address: str | None
    reason: str = ""  # why the stage is unavailable ("" when it is available)
    process: subprocess.Popen[bytes] | None = None
    key: str = ""  # the service-token key guard-service was started with (or the deployment's)
    # One channel for the probe and every case's call (cases run in parallel; a channel is thread-safe
    # and connects on its first call).
    channel: grpc.Channel | None = dataclasses.field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.address is not None:
            self.channel = grpc.insecure_channel(self.address, options=_CHANNEL_OPTIONS)

    def metadata(self) -> list[tuple[str, str]]:
        return [(servicetoken.HEADER, servicetoken.mint(self.key, CALLER, service_name()))] if self.key else []

    @property
    def available(self) -> bool:
        return self.address is not None and not self.reason

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        """AnalyzeHeal on `request` (AnalyzeHealRequest's fields as a dict): the response as a dict in
        the proto's field names, default values left out, the verdict by name; raises grpc.RpcError.
        A key the proto does not have is an error (json_format.ParseError), not dropped: the heal
        analysis healrt sends and guard.proto must agree."""
        assert self.channel is not None
        guard = guard_stubs()
        message = json_format.ParseDict(request, guard.pb.AnalyzeHealRequest())
        response = guard.grpc.GuardServiceStub(self.channel).AnalyzeHeal(
            message, timeout=CALL_TIMEOUT_S, metadata=self.metadata())
        answer = json_format.MessageToDict(response, preserving_proto_field_name=True)
        answer["verdict"] = verdict_name(response.verdict)
        return answer

    def analyze(self, analysis: dict[str, Any], heal_code: str, policy: dict[str, Any]) -> dict[str, Any]:
        """{"verdict": TAINTED|CLEAN|UNKNOWN|UNSPECIFIED, "sink": ..., ...} or {"verdict": "ERROR", "error": ...}."""
        try:
            return self.call(request_of(analysis, heal_code, policy))
        except grpc.RpcError as error:
            return {"verdict": "ERROR", "error": describe(error)}

    def close(self) -> None:
        if self.channel is not None:
            self.channel.close()
            self.channel = None
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None


def describe(error: grpc.RpcError) -> str:
    """`CODE: message` of a failed call (the error a unary call raises is also its grpc.Call)."""
    call = cast(grpc.Call, error)
    return f"{call.code().name}: {call.details()}"


def open_stage(option: str, policy: dict[str, Any], scratch: Path) -> StaticStage:
    """`option`: "off", "auto", or HOST:PORT of a running guard-service."""
    if option == "off":
        return StaticStage(None, "disabled (--guard off)")
    try:
        guard_stubs()  # before starting a guard-service there would be no way to call
    except stubs.StubError as error:
        return StaticStage(None, f"guard.proto's Python stubs cannot be generated: {error}")
    stage = StaticStage(option, key=servicetoken.environment_key()) if option != "auto" else _start_guard(scratch)
    if stage.address is None:
        return stage
    problem = _call_probe(stage, policy)
    if problem and not stage.key:
        problem += f" (guard-service takes calls with a service token only: set {servicetoken.KEY_ENV} to its key)"
    if problem:
        stage.close()
        return StaticStage(None, problem)
    return stage


def _call_probe(stage: StaticStage, policy: dict[str, Any]) -> str:
    """"" when AnalyzeHeal answers the probe with a verdict; else why the stage is unavailable."""
    try:
        verdict = stage.call(_probe_request(policy))["verdict"]
    except grpc.RpcError as error:
        return f"AnalyzeHeal at {stage.address} gives no verdict ({describe(error)})"
    return "" if verdict in ("TAINTED", "CLEAN", "UNKNOWN") else f"AnalyzeHeal at {stage.address} answered {verdict}"


def _start_guard(scratch: Path) -> StaticStage:
    if not JAR.is_file():
        return StaticStage(None, f"guard-service is not built ({JAR.relative_to(REPO)} is missing)")
    sources = [*(REPO / "guard-service" / "src" / "main").rglob("*"), *(REPO / "guard-core" / "src" / "main").rglob("*"),
               *(REPO / "proto" / "src").rglob("*"), REPO / "healrt" / "healrt" / "healcore_policy.json"]
    newer = [path for path in sources if path.is_file() and path.stat().st_mtime > JAR.stat().st_mtime]
    if newer:
        return StaticStage(None, f"the built guard-service is older than its sources (e.g. "
                                 f"{newer[0].relative_to(REPO)}); rebuild it: mvn -B -q -pl guard-service -am install -DskipTests")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = (scratch / "guard-service.log").open("wb")
    key = servicetoken.new_key()  # this guard-service takes calls from this suite only
    process = subprocess.Popen(["java", f"-Dquarkus.http.port={port}", "-Dquarkus.http.host=127.0.0.1", "-jar", str(JAR)],
                               stdout=log, stderr=subprocess.STDOUT, cwd=scratch, start_new_session=True,
                               env={**os.environ, servicetoken.KEY_ENV: key})
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline and process.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return StaticStage(f"127.0.0.1:{port}", process=process, key=key)
        except OSError:
            time.sleep(0.5)
    stage = StaticStage(None, f"guard-service did not start within {START_TIMEOUT_S}s (log: {scratch / 'guard-service.log'})",
                        process=process)
    stage.close()
    return stage
