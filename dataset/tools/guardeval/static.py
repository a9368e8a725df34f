"""The static stage: guard-service's AnalyzeHeal on the heal_analysis payload each case's run produced.

Where the guard comes from, in order: `--guard HOST:PORT` (or $HEALBENCH_GUARD_ADDRESS), a
guard-service already serving; else (`--guard auto`) the built guard-service
(guard-service/target/quarkus-app/quarkus-run.jar) started once on a free port and stopped at the
end. The stage is available only when AnalyzeHeal answers a probe request with a verdict; else it
is reported `unavailable` with the reason, and no case gets a static verdict.
"""

from __future__ import annotations

import dataclasses
import json
import os
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

from hbdata import REPO_ROOT as REPO
from hbdata import healrt_module

from . import grpcwire, servicetoken

module_json = healrt_module("astexport").module_json

SERVICE = "healbench.guard.v1.GuardService"
METHOD = f"/{SERVICE}/AnalyzeHeal"
CALLER = "guard-eval"  # the `sub` of this suite's service tokens
JAR = REPO / "guard-service" / "target" / "quarkus-app" / "quarkus-run.jar"
START_TIMEOUT_S = 120
CALL_TIMEOUT_S = 120

_DELTA = {"location": (1, "string"), "kind": (2, "string"), "before": (3, "string"), "after": (4, "string"),
          "also": (5, ["string"])}
_CALL_SITE = {"file": (1, "string"), "function": (2, "string"), "qualname": (3, "string"), "line": (4, "int"),
              "col": (5, "int"), "end_line": (6, "int"), "end_col": (7, "int"), "through_library": (8, "bool")}
_CRASH_POINT = {"file": (1, "string"), "function": (2, "string"), "qualname": (3, "string"), "line": (4, "int"),
                "col": (5, "int"), "end_line": (6, "int"), "end_col": (7, "int"), "kind": (8, "string"),
                "resume": (9, "string"), "callers": (10, [_CALL_SITE])}
_MODULE = {"file": (1, "string"), "module": (2, "string"), "ast_json": (3, "string")}
REQUEST = {"heal_code": (1, "string"), "heal_point": (2, "int"), "delta": (3, [_DELTA]),
           "delta_truncated": (4, "bool"), "crash_point": (5, _CRASH_POINT), "modules": (6, [_MODULE]),
           "modules_truncated": (7, "bool"), "policy_json": (8, "string")}
_WITNESS = {"file": (1, "string"), "line": (2, "int"), "col": (3, "int"), "description": (4, "string")}
_SINK = {"op": (1, "string"), "category": (2, "string"), "key_input": (3, "string"), "file": (4, "string"),
         "line": (5, "int"), "col": (6, "int")}
_INCOMPLETE = {"file": (1, "string"), "line": (2, "int"), "col": (3, "int"), "construct": (4, "string"),
               "reason": (5, "string")}
RESPONSE = {"verdict": (1, "int"), "source": (2, "string"), "witness": (3, [_WITNESS]), "sink": (4, _SINK),
            "incomplete": (5, [_INCOMPLETE]), "analyzer_version": (6, "string"), "functions_analyzed": (7, "int")}
VERDICTS = {0: "UNSPECIFIED", 1: "TAINTED", 2: "CLEAN", 3: "UNKNOWN"}


def request_of(analysis: dict[str, Any], heal_code: str, policy: dict[str, Any]) -> dict[str, Any]:
    """An AnalyzeHealRequest (as a dict for grpcwire.encode) from healrt's heal_analysis message."""
    return {
        "heal_code": heal_code,
        "heal_point": analysis.get("heal_point") or 0,
        "delta": analysis.get("delta") or [],
        "delta_truncated": bool(analysis.get("delta_truncated")),
        "crash_point": analysis.get("crash_point") or {},
        "modules": [{"file": m.get("file"), "module": m.get("module"),
                     "ast_json": json.dumps(m.get("ast"), separators=(",", ":"), ensure_ascii=False)}
                    for m in analysis.get("modules") or []],
        "modules_truncated": bool(analysis.get("modules_truncated")),
        "policy_json": json.dumps(policy),
    }


def _probe_request(policy: dict[str, Any]) -> dict[str, Any]:
    """A heal of `path` right before `open(path, 'w')`: any working analysis answers it."""
    source = "def save(path):\n    path = path.strip()\n    open(path, 'w').close()\n"
    return {"heal_code": "path = 'x'", "heal_point": 1,
            "delta": [{"location": "name:path", "kind": "both", "before": "'a'", "after": "'x'"}],
            "crash_point": {"file": "probe.py", "function": "save", "qualname": "save", "line": 2, "col": 4,
                            "end_line": 2, "end_col": 23, "kind": "assign", "resume": "skip"},
            "modules": [{"file": "probe.py", "module": "probe",
                         "ast_json": json.dumps(module_json(source, "probe.py"))}],
            "policy_json": json.dumps(policy)}


@dataclasses.dataclass
class StaticStage:
    address: str | None
    reason: str = ""  # why the stage is unavailable ("" when it is available)
    process: subprocess.Popen[bytes] | None = None
    key: str = ""  # the service-token key guard-service was started with (or the deployment's)

    def metadata(self) -> list[tuple[str, str]]:
        return [(servicetoken.HEADER, servicetoken.mint(self.key, CALLER, SERVICE))] if self.key else []

    @property
    def available(self) -> bool:
        return self.address is not None and not self.reason

    def analyze(self, analysis: dict[str, Any], heal_code: str, policy: dict[str, Any]) -> dict[str, Any]:
        """{"verdict": TAINTED|CLEAN|UNKNOWN|UNSPECIFIED, "sink": ..., ...} or {"verdict": "ERROR", "error": ...}."""
        assert self.address is not None
        try:
            raw = grpcwire.unary_call(self.address, METHOD, grpcwire.encode(REQUEST, request_of(analysis, heal_code, policy)),
                                      CALL_TIMEOUT_S, self.metadata())
        except grpcwire.GrpcError as error:
            return {"verdict": "ERROR", "error": str(error)}
        response = grpcwire.decode(RESPONSE, raw)
        response["verdict"] = VERDICTS.get(response.get("verdict", 0), "UNSPECIFIED")
        return response

    def close(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None


def open_stage(option: str, policy: dict[str, Any], scratch: Path) -> StaticStage:
    """`option`: "off", "auto", or HOST:PORT of a running guard-service."""
    if option == "off":
        return StaticStage(None, "disabled (--guard off)")
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
        raw = grpcwire.unary_call(stage.address or "", METHOD, grpcwire.encode(REQUEST, _probe_request(policy)), CALL_TIMEOUT_S,
                                  stage.metadata())
    except grpcwire.GrpcError as error:
        return f"AnalyzeHeal at {stage.address} gives no verdict ({error})"
    verdict = VERDICTS.get(grpcwire.decode(RESPONSE, raw).get("verdict", 0), "UNSPECIFIED")
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
