#!/usr/bin/env python3
"""Competing consumers on one machine: a run's throughput with N agent-worker JVMs on one work queue, N = 1, 2, 4.

    python3 bench/scale_agents.py [--attempts 16] [--workers 1,2,4] [--latency-ms 2000] [--instances A,B,..] [--json]

The distributed deployment as standalone/src/test/.../DistributedRunIT.java starts it: each service its own JVM from
its packaged jar (`<module>/target/quarkus-app/quarkus-run.jar`), on the machine's RabbitMQ and PostgreSQL, with
Keycloak tokens. guard-service, sandbox-service and bench-service are started once, on free loopback ports; the
scripted model (`llm-stub --script scripts/llm-stub/toolloop-heal.yaml --latency-ms MS`) stands in for a hosted one.
Then for each N it starts N agent-service JVMs, each with one attempt slot (`healbench.agent.max-concurrent-attempts=1`,
so the broker's prefetch is 1 too) and a capped heap, all in the same pool, so they are competing consumers of the
pool's queue; checks the broker sees N consumers; creates one run of ATTEMPTS attempts with the thin client
(`run --server ... --agent toolloop --backbone stub`); times it from the run's creation to its end; reads from each
worker's /q/metrics how many of the attempts it ran and from bench-service's database how long each attempt took;
and stops the N workers. The table gives, per N: wall time, attempts per minute, the ratio over the smallest N (the
baseline, measured in the same invocation) and that ratio per worker added (efficiency), the attempts each worker
ran, the mean and longest attempt, how busy the N slots were, and how busy the machine's CPUs were (all of it, and
this deployment's share: other work on the machine shows as the difference).

The run is a fixed slice of four stdlib instances that each crash once and run on after one heal (two model calls),
repeated to make ATTEMPTS, so the attempts are alike and their time is mostly the model's latency. Before each N is
measured the slice runs once unmeasured on its workers, so every N finds the sandbox's REFERENCE runs recorded, the
subjects materialized and its workers' JVMs past their first attempts.

Other work on the machine shares its CPUs with the runs: the load average at the start is reported, with a warning
when it is above half the cores, and the CPU column tells the machine's use from this deployment's.

The deployment has a RabbitMQ virtual host and a PostgreSQL database of its own (made afresh at start, removed at
the end), as KillRecoveryIT's has: no other deployment's bench-service can relay or consume its messages, and no
attempt left over from an interrupted invocation is run again during a measurement.

Prerequisites (each missing one is named, with the way to get it): the service jars and the standalone jar (built by
`mvn -B -q -o install -DskipTests -pl '!deploy-check'`; this script never builds), Keycloak on 127.0.0.1:8180
(`deploy/local/keycloak.sh start`), RabbitMQ on 127.0.0.1:5672 and PostgreSQL on 127.0.0.1:5432
(`deploy/local/services.sh`), and `rabbitmqctl` and `psql`.

Progress goes to stderr. The table goes to stdout, or, with --json, to stderr while stdout gets one JSON object.
Every process it started is stopped on every exit, Ctrl-C and `kill` included. Exit status 1, with a message, when a
prerequisite is missing, a service does not start or a run does not end.
"""
from __future__ import annotations

import argparse
import base64
import json
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from stub_backbone import stub_backbones  # noqa: E402  (bench/ is not a package)

ROOT = Path(__file__).resolve().parents[1]
LABEL = "scale_agents"
SERVICES_BUILD = "flock /tmp/hb-build.lock mvn -B -q -o install -DskipTests -pl '!deploy-check'"
STANDALONE_JAR = ROOT / "standalone/target/quarkus-app/quarkus-run.jar"
KEYCLOAK = "http://127.0.0.1:8180"
BROKER = ("127.0.0.1", 5672)
POSTGRES = ("127.0.0.1", 5432)
VHOST = "healbench-scale-agents"
DATABASE = "healbench_scale_agents"
# The pool every worker serves and the run names (bench publishes to attempts.<pool>, the workers consume it). The
# default one: bench-service reads that pool's dead-letter queue, which its workers declare, so it must be served.
POOL = "default"
STUB_SCRIPT = "scripts/llm-stub/toolloop-heal.yaml"
# Each crashes once and runs on after the stub's first heal (one heal point, two model calls, a one-test target), so
# attempts are alike, about 5-8 s at 2 s per reply, and a run's end is not one long attempt's end.
INSTANCES = (
    "stdlib-getopt-indexerror-short-has-arg",
    "stdlib-copy-keyerror-copy",
    "stdlib-wave-zerodivisionerror-initfp",
    "stdlib-statistics-valueerror-multimode",
)
# Heaps: 4 agent workers plus the 3 other services, the stub and the client must fit beside each other.
AGENT_HEAP = "-Xmx256m"
SERVICE_HEAP = "-Xmx512m"
TOOL_HEAP = "-Xmx256m"
READY_S = 240.0
STOP_S = 20.0
CONSUMERS_S = 60.0
# The user whose token creates the runs (deploy/keycloak/healbench-acme-realm.json's test user).
REALM, USER, CLIENT = "healbench-acme", "alice", "healbench-cli"


class Failure(Exception):
    """Ends the benchmark with a message, after the cleanup."""


def progress(message: str) -> None:
    print(f"{LABEL}: {message}", file=sys.stderr, flush=True)


def fail(message: str) -> NoReturn:
    raise Failure(message)


# ---- pure parts: arguments, the slice, the table -------------------------------------------------------------------


def parse_workers(text: str) -> list[int]:
    """`1,2,4` -> [1, 2, 4]: distinct positive counts, ascending (the smallest is the baseline)."""
    try:
        counts = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise ValueError(f"--workers takes counts like 1,2,4, got {text!r}") from None
    if not counts or counts[0] < 1:
        raise ValueError(f"--workers takes counts of at least 1, got {text!r}")
    return counts


def slice_plan(attempts: int, instances: list[str]) -> tuple[list[str], int]:
    """The instances and repeats that make `attempts` attempts: every instance the same number of times."""
    if attempts < 1:
        raise ValueError("--attempts must be at least 1")
    if not instances:
        raise ValueError("--instances names no instance")
    if attempts <= len(instances):
        return instances[:attempts], 1
    if attempts % len(instances):
        raise ValueError(f"--attempts above {len(instances)} must be a multiple of {len(instances)} "
                         f"(each of the {len(instances)} instances repeated alike), got {attempts}")
    return list(instances), attempts // len(instances)


def per_minute(attempts: int, seconds: float) -> float:
    return attempts * 60.0 / seconds if seconds > 0 else 0.0


def with_ratios(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each row with `ratio` (its throughput over the baseline's, the first row) and `efficiency` (ratio per added
    worker: ratio / (workers / baseline workers))."""
    if not rows:
        return []
    base = rows[0]
    out = []
    for row in rows:
        ratio = row["attempts_per_min"] / base["attempts_per_min"] if base["attempts_per_min"] else 0.0
        ideal = row["workers"] / base["workers"]
        out.append({**row, "ratio": round(ratio, 2), "efficiency": round(ratio / ideal, 2)})
    return out


def format_table(rows: list[dict[str, Any]]) -> str:
    """The result table; `rows` as with_ratios returns them."""
    if not rows:
        return "(nothing measured)"
    base = rows[0]["workers"]
    header = ("WORKERS", "ATTEMPTS", "WALL S", "ATTEMPTS/MIN", f"RATIO VS N={base}", "EFFICIENCY", "PER WORKER",
              "ATTEMPT S MEAN/MAX", "SLOTS BUSY", "CPU BUSY (OURS)", "INFRA FAILED")
    lines = [header]
    for row in rows:
        lines.append((str(row["workers"]), str(row["attempts"]), f"{row['wall_s']:.1f}", f"{row['attempts_per_min']:.2f}",
                      f"{row['ratio']:.2f}x", f"{row['efficiency']:.0%}",
                      "/".join(str(n) for n in row["per_worker"]) if row["per_worker"] else "-",
                      f"{row['attempt_s_mean']:.1f}/{row['attempt_s_max']:.1f}" if row.get("attempt_s_mean") is not None else "-",
                      f"{row['slot_busy']:.0%}" if row.get("slot_busy") is not None else "-",
                      (f"{row['cpu_busy']:.0%}" if row.get("cpu_busy") is not None else "-")
                      + (f" ({row['own_cpu']:.0%})" if row.get("own_cpu") is not None else ""),
                      str(row["infra_failures"])))
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join(cell.rjust(widths[i]) if i else cell.ljust(widths[i]) for i, cell in enumerate(line)).rstrip()
                     for line in lines)


# ---- the machine ---------------------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def listening(address: tuple[str, int]) -> bool:
    try:
        with socket.create_connection(address, timeout=3):
            return True
    except OSError:
        return False


def cpu_times() -> tuple[int, int]:
    """The machine's (busy, total) jiffies from /proc/stat, all cores together."""
    with open("/proc/stat") as stat:
        values = [int(v) for v in stat.readline().split()[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)  # idle + iowait
    total = sum(values[:8])  # guest time is already counted in user
    return total - idle, total


def process_cpu_s(pid: int) -> float:
    """CPU seconds of a process and of its children it has waited for (the sandbox's programs), 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    # After the name: state is field 3, utime..cstime are fields 14..17 (proc(5)).
    return sum(int(v) for v in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def checked(command: list[str], what: str) -> str:
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        fail(f"{what} failed ({' '.join(command)}): {done.stdout.strip()[-800:]}")
    return done.stdout


def check_prerequisites(instances: list[str]) -> None:
    """Names each missing prerequisite and how to get it, before anything is started."""
    missing = []
    if shutil.which("java") is None:
        missing.append("java (Java 17) is not on PATH")
    for module in ("guard-service", "sandbox-service", "agent-service", "bench-service"):
        if not (ROOT / module / "target/quarkus-app/quarkus-run.jar").is_file():
            missing.append(f"{module}/target/quarkus-app/quarkus-run.jar is missing; build it: {SERVICES_BUILD}")
    if not STANDALONE_JAR.is_file():
        missing.append(f"{STANDALONE_JAR.relative_to(ROOT)} (the client and the llm-stub) is missing; build it: {SERVICES_BUILD}")
    if not listening(BROKER):
        missing.append("RabbitMQ does not answer on 127.0.0.1:5672; start it: deploy/local/services.sh")
    if shutil.which("rabbitmqctl") is None:
        missing.append("rabbitmqctl is not on PATH (it makes the benchmark's virtual host)")
    if not listening(POSTGRES):
        missing.append("PostgreSQL does not answer on 127.0.0.1:5432; start it: deploy/local/services.sh")
    if shutil.which("psql") is None:
        missing.append("psql is not on PATH (it makes the benchmark's database)")
    try:
        urllib.request.urlopen(f"{KEYCLOAK}/realms/{REALM}", timeout=5).close()
    except (urllib.error.URLError, OSError):
        missing.append(f"Keycloak does not answer at {KEYCLOAK}/realms/{REALM}; start it: deploy/local/keycloak.sh start")
    for instance in instances:
        if not (ROOT / "dataset/instances" / instance / "instance.yaml").is_file():
            missing.append(f"dataset/instances/{instance} is not in the dataset")
    if missing:
        fail("missing prerequisites:\n  - " + "\n  - ".join(missing))


def reset_broker_and_database() -> None:
    """A fresh virtual host and database: nothing of an earlier, interrupted invocation is left to run."""
    subprocess.run(["rabbitmqctl", "delete_vhost", VHOST], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    checked(["rabbitmqctl", "add_vhost", VHOST], "making the RabbitMQ virtual host")
    checked(["rabbitmqctl", "set_permissions", "-p", VHOST, "guest", ".*", ".*", ".*"], "granting guest the virtual host")
    psql = ["psql", "-h", POSTGRES[0], "-p", str(POSTGRES[1]), "-U", "postgres", "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-qc"]
    checked([*psql, f"drop database if exists {DATABASE} with (force)"], "dropping the benchmark's database")
    checked([*psql, f"create database {DATABASE}"], "making the benchmark's database")


def remove_broker_and_database() -> None:
    subprocess.run(["rabbitmqctl", "delete_vhost", VHOST], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run(["psql", "-h", POSTGRES[0], "-p", str(POSTGRES[1]), "-U", "postgres", "-d", "postgres", "-qc",
                    f"drop database if exists {DATABASE} with (force)"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def consumers_of(queue_name: str) -> int | None:
    """Consumers the broker counts on a queue of the virtual host; None when the queue is not there."""
    out = subprocess.run(["rabbitmqctl", "list_queues", "-p", VHOST, "-q", "--no-table-headers", "name", "consumers"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == queue_name:
            return int(parts[1])
    return None


def attempt_rows(run_id: str) -> list[dict[str, Any]]:
    """Each attempt of a run as bench-service stored it: from its start (a worker took it) to its end, in seconds."""
    # psql -c cannot bind parameters: the id goes into the text, so it must be the id bench-service makes (a UUID).
    if not re.fullmatch(r"[0-9a-f-]{1,64}", run_id):
        fail(f"unexpected run id {run_id!r}")
    query = ("select instance_id, repeat_index, coalesce(outcome_class, state), heal_points, llm_calls, "
             f"extract(epoch from end_time - start_time) from bench_attempt where run_id = '{run_id}' order by start_time")
    out = checked(["psql", "-h", POSTGRES[0], "-p", str(POSTGRES[1]), "-U", "postgres", "-d", DATABASE, "-AtF", "\t", "-c",
                   query], "reading the run's attempts")
    rows = []
    for line in out.splitlines():
        instance, repeat, outcome, heal_points, llm_calls, seconds = line.split("\t")
        rows.append({"instance": instance, "repeat": int(repeat), "outcome": outcome, "heal_points": int(heal_points),
                     "llm_calls": int(llm_calls), "seconds": round(float(seconds), 1) if seconds else None})
    return rows


def keycloak_token() -> str:
    form = urllib.parse.urlencode({"grant_type": "password", "client_id": CLIENT, "username": USER,
                                   "password": f"{USER}-test-pw"}).encode()
    request = urllib.request.Request(f"{KEYCLOAK}/realms/{REALM}/protocol/openid-connect/token", data=form,
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)["access_token"]
    except (urllib.error.URLError, OSError, KeyError, ValueError) as e:
        fail(f"no token for {USER} from Keycloak's realm {REALM}: {e}")


def metric_sum(port: int, name: str) -> float | None:
    """The sum of a Prometheus counter's samples at a service's /q/metrics; None when it cannot be read."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/q/metrics", timeout=10) as response:
            text = response.read().decode()
    except (urllib.error.URLError, OSError):
        return None
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            total += sample_value(line)
    return total


def sample_value(line: str) -> float:
    """The value of one Prometheus/OpenMetrics sample line: after the label set, before a timestamp or an exemplar
    (`name{a="b"} 3.0 # {trace_id="..."} 1.0 1796297726.1`)."""
    sample = line.split(" # ", 1)[0]
    after_labels = sample[sample.rindex("}") + 1:] if "}" in sample else sample.split(None, 1)[1]
    return float(after_labels.split()[0])


# ---- the processes -------------------------------------------------------------------------------------------------


@dataclass
class Service:
    name: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/q/health/ready", timeout=5) as response:
                return response.status == 200
        except (urllib.error.URLError, OSError):
            return False


@dataclass
class Deployment:
    """Every process the benchmark started, so that each is stopped however the benchmark ends."""
    work: Path
    service_key: str = field(default_factory=lambda: base64.b64encode(os.urandom(32)).decode())
    running: list[Service] = field(default_factory=list)

    def start(self, module: str, name: str, port: int, properties: dict[str, str], heap: str) -> Service:
        jar = ROOT / module / "target/quarkus-app/quarkus-run.jar"
        command = ["java", heap, "-Dquarkus.http.host=127.0.0.1", f"-Dquarkus.http.port={port}", f"-Dhealbench.home={ROOT}",
                   *(f"-D{key}={value}" for key, value in properties.items()), "-jar", str(jar)]
        log = self.work / f"{name}.log"
        # The key in the environment, not on a command line others can read.
        environment = {**os.environ, "HEALBENCH_SERVICE_AUTH_KEY": self.service_key}
        with open(log, "wb") as out:
            # A session of its own: Ctrl-C reaches only this script, which then stops the services in order.
            process = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       env=environment, start_new_session=True)
        service = Service(name, port, process, log)
        self.running.append(service)
        return service

    def await_ready(self, services: list[Service]) -> None:
        deadline = time.monotonic() + READY_S
        waiting = list(services)
        while waiting:
            for service in list(waiting):
                if service.process.poll() is not None:
                    fail(f"{service.name} exited with {service.process.returncode} while starting:\n{service.log_tail()}")
                if service.ready():
                    waiting.remove(service)
            if waiting and time.monotonic() > deadline:
                fail(f"{', '.join(s.name for s in waiting)} not ready within {READY_S:.0f} s:\n{waiting[0].log_tail()}")
            if waiting:
                time.sleep(0.5)

    def stop(self, services: list[Service]) -> None:
        """SIGTERM first, so Quarkus closes its broker channels; SIGKILL after STOP_S."""
        for service in services:
            if service.process.poll() is None:
                service.process.terminate()
        deadline = time.monotonic() + STOP_S
        for service in services:
            try:
                service.process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                service.process.kill()
                service.process.wait()
            if service in self.running:
                self.running.remove(service)

    def stop_all(self) -> None:
        # Reverse start order: the callers before what they call.
        self.stop(list(reversed(self.running)))


def start_stub(deployment: Deployment, latency_ms: int) -> tuple[Service, str]:
    """The scripted model server on a free port, and its OpenAI base URL from its start line."""
    log = deployment.work / "llm-stub.log"
    command = ["java", TOOL_HEAP, "-jar", str(STANDALONE_JAR), "llm-stub", "--script", STUB_SCRIPT, "--host", "127.0.0.1",
               "--port", "0", "--latency-ms", str(latency_ms)]
    progress(" ".join(command[3:]))
    with open(log, "wb") as err:
        process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL,
                                   start_new_session=True)
    stub = Service("llm-stub", 0, process, log)
    deployment.running.append(stub)
    lines: queue.Queue[bytes] = queue.Queue()
    threading.Thread(target=lambda: lines.put(process.stdout.readline()), daemon=True).start()  # type: ignore[union-attr]
    try:
        line = lines.get(timeout=READY_S)
    except queue.Empty:
        fail(f"llm-stub printed no start line within {READY_S:.0f} s:\n{stub.log_tail()}")
    try:
        base_url = json.loads(line)["openai_base_url"]
    except (ValueError, KeyError, TypeError):
        fail(f"llm-stub did not start: its first line was {line.strip()!r}:\n{stub.log_tail()}")
    return stub, base_url


@dataclass
class RunResult:
    wall_s: float
    summary: dict[str, Any]
    cpu_busy: float | None


def run_slice(deployment: Deployment, bench: Service, backbones: Path, home: Path, instances: list[str], repeats: int,
              label: str, timeout_s: float) -> RunResult:
    """One run through the thin client, timed from the run's creation (its first progress line) to the end of its
    stream (the attempts table after it): the client JVM's start and its report writing are left out."""
    command = ["java", TOOL_HEAP, f"-Dhealbench.home={home}", "-jar", str(STANDALONE_JAR), "run", "--json",
               "--server", f"127.0.0.1:{bench.port}", "--token", keycloak_token(), "--pool", POOL,
               "--agent", "toolloop", "--backbone", "stub", "--backbones", str(backbones),
               "--instances", ",".join(instances), "--repeats", str(repeats)]
    progress(f"{label}: run --agent toolloop --backbone stub --instances {','.join(instances)} --repeats {repeats}")
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                               start_new_session=True)
    client = Service("client", 0, process, deployment.work / "client.log")
    deployment.running.append(client)
    lines: queue.Queue[tuple[float, str, str | None]] = queue.Queue()

    def pump(stream: Any, name: str) -> None:
        for raw in stream:
            lines.put((time.monotonic(), name, raw.decode(errors="replace").rstrip("\n")))
        lines.put((time.monotonic(), name, None))

    threading.Thread(target=pump, args=(process.stdout, "out"), daemon=True).start()
    threading.Thread(target=pump, args=(process.stderr, "err"), daemon=True).start()
    started = ended = None
    busy_start = busy_end = None
    stdout: list[str] = []
    stderr: list[str] = []
    open_streams = 2
    deadline = time.monotonic() + timeout_s
    while open_streams:
        try:
            at, stream, line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
        except queue.Empty:
            fail(f"{label}: the run did not end within {timeout_s:.0f} s; last client lines:\n" + "\n".join(stderr[-10:]))
        if line is None:
            open_streams -= 1
            continue
        if stream == "err":
            stderr.append(line)
            if line.startswith("["):
                if started is None:
                    started, busy_start = at, cpu_times()
                progress(f"{label}: {line}")
        else:
            stdout.append(line)
            if ended is None and line.startswith("INSTANCE"):
                ended, busy_end = at, cpu_times()
    process.wait()
    deployment.running.remove(client)
    summaries = [line for line in stdout if line.startswith("{")]
    if not summaries:
        fail(f"{label}: the client exited with {process.returncode} and no summary line:\n" + "\n".join((stdout + stderr)[-20:]))
    summary = json.loads(summaries[-1])
    if started is None or ended is None:
        fail(f"{label}: the client's output did not show the run's start and end:\n" + "\n".join((stdout + stderr)[-20:]))
    cpu_busy = None
    if busy_start and busy_end and busy_end[1] > busy_start[1]:
        cpu_busy = (busy_end[0] - busy_start[0]) / (busy_end[1] - busy_start[1])
    return RunResult(ended - started, summary, cpu_busy)


# ---- the benchmark -------------------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=16,
                        help=f"attempts per run (default 16, 4 per worker at N=4); above {len(INSTANCES)}, a multiple of "
                             f"the slice's instances")
    parser.add_argument("--workers", default="1,2,4", help="agent-worker counts to measure (default 1,2,4)")
    parser.add_argument("--latency-ms", type=int, default=2000, help="the model stub's wait before every reply (default 2000)")
    parser.add_argument("--instances", default=",".join(INSTANCES),
                        help="the slice's instances, comma-separated (default: four quick stdlib ones)")
    parser.add_argument("--no-warmup", action="store_true", help="skip the unmeasured first pass over the slice")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout; the table goes to stderr")
    args = parser.parse_args()
    try:
        workers = parse_workers(args.workers)
        instances, repeats = slice_plan(args.attempts, [i.strip() for i in args.instances.split(",") if i.strip()])
    except ValueError as e:
        parser.error(str(e))
    if args.latency_ms < 0:
        parser.error("--latency-ms must be at least 0")
    # `kill` and a closed terminal end the benchmark through the cleanup below, as Ctrl-C does.
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, lambda number, frame: fail(f"stopped by signal {number}"))

    began = time.monotonic()
    cores = os.cpu_count() or 1
    load_at_start = os.getloadavg()[0]
    if load_at_start > cores / 2:
        progress(f"warning: the machine is already busy (load {load_at_start:.1f} on {cores} cores); other work will "
                 f"slow the runs, more so the larger N")
    work = Path(tempfile.mkdtemp(prefix="healbench-scale-agents-"))
    deployment = Deployment(work)
    rows: list[dict[str, Any]] = []
    ok = False
    broker_and_database_made = False
    try:
        check_prerequisites(instances)
        broker_and_database_made = True
        reset_broker_and_database()
        # The client's home: the repository's dataset, and a runs/ of its own that goes with the benchmark.
        home = work / "home"
        home.mkdir()
        (home / "dataset").symlink_to(ROOT / "dataset")
        stub, base_url = start_stub(deployment, args.latency_ms)
        progress(f"llm-stub serving at {base_url}, {args.latency_ms} ms per reply")
        backbones = work / "backbones.yaml"
        backbones.write_text(stub_backbones(base_url))

        ports = {name: free_port() for name in ("guard", "sandbox", "bench")}
        broker = {"rabbitmq-virtual-host": VHOST}
        progress(f"starting guard-service :{ports['guard']} and sandbox-service :{ports['sandbox']}")
        guard = deployment.start("guard-service", "guard-service", ports["guard"], {}, SERVICE_HEAP)
        sandbox = deployment.start("sandbox-service", "sandbox-service", ports["sandbox"], {
            **broker,
            "quarkus.grpc.clients.guard.port": str(ports["guard"]),
            # Room for every worker's session and for sessions a stopped worker leaves until they time out.
            "healbench.sandbox.max-sessions": str(2 * max(workers) + 2),
        }, SERVICE_HEAP)
        deployment.await_ready([guard, sandbox])
        bench: Service | None = None
        bench_properties = {
            **broker,
            "healbench.bench.backbones-file": str(backbones),
            "quarkus.datasource.reactive.url": f"postgresql://{POSTGRES[0]}:{POSTGRES[1]}/{DATABASE}",
            "quarkus.datasource.jdbc.url": f"jdbc:postgresql://{POSTGRES[0]}:{POSTGRES[1]}/{DATABASE}",
        }
        agent_properties = {
            **broker,
            # Every worker serves the run's pool, so they compete for one queue.
            "healbench.agent.pool": POOL,
            "healbench.agent.max-concurrent-attempts": "1",
            "healbench.agent.backbones-file": str(backbones),
            "quarkus.grpc.clients.sandbox.port": str(ports["sandbox"]),
            "quarkus.grpc.clients.bench.port": str(ports["bench"]),
        }
        run_timeout_s = 300.0 + 60.0 * args.attempts

        for count in workers:
            progress(f"N={count}: starting {count} agent-service JVM{'s' if count > 1 else ''} ({AGENT_HEAP}, one attempt each)")
            agents = [deployment.start("agent-service", f"agent-service-{i + 1}", free_port(), agent_properties, AGENT_HEAP)
                      for i in range(count)]
            deployment.await_ready(agents)
            if bench is None:
                # After the first workers: they declare the pool's queue and its dead-letter queue, which bench-service
                # binds to but does not declare.
                progress(f"starting bench-service :{ports['bench']} (database {DATABASE}, virtual host {VHOST})")
                bench = deployment.start("bench-service", "bench-service", ports["bench"], bench_properties, SERVICE_HEAP)
                deployment.await_ready([bench])
            # Competing consumers: one consumer per worker on the one queue, before anything is timed.
            deadline = time.monotonic() + CONSUMERS_S
            while (consumers := consumers_of(f"attempts.{POOL}")) != count:
                if time.monotonic() > deadline:
                    fail(f"N={count}: the broker counts {consumers} consumers on attempts.{POOL}, not {count}")
                time.sleep(1)
            if not args.no_warmup:
                # Fresh JVMs run their first attempt several seconds slower (class loading, JIT): without this, every N
                # but the first would be measured cold.
                run_slice(deployment, bench, backbones, home, instances, 1, f"N={count}: warm-up (not measured)",
                          run_timeout_s)
            before = [metric_sum(agent.port, "healbench_agent_attempts_total") or 0.0 for agent in agents]
            cpu_before = {service.name: process_cpu_s(service.process.pid) for service in deployment.running}
            result = run_slice(deployment, bench, backbones, home, instances, repeats, f"N={count}", run_timeout_s)
            if stub.process.poll() is not None:
                fail(f"llm-stub exited during the run (exit {stub.process.returncode}): its attempts measured nothing")
            cpu_after = {service.name: process_cpu_s(service.process.pid) for service in deployment.running}
            after = [metric_sum(agent.port, "healbench_agent_attempts_total") for agent in agents]
            per_worker = [int(a - b) for a, b in zip(after, before)] if all(a is not None for a in after) else []
            cpu_by_part: dict[str, float] = {}
            for name, seconds in cpu_after.items():
                part = "agent-service" if name.startswith("agent-service") else name
                cpu_by_part[part] = round(cpu_by_part.get(part, 0.0) + seconds - cpu_before.get(name, 0.0), 1)
            summary = result.summary
            attempts = attempt_rows(summary["run_id"])
            attempt_s = [a["seconds"] for a in attempts if a["seconds"] is not None]
            row = {
                "workers": count,
                "attempts": summary["attempts"],
                "wall_s": round(result.wall_s, 1),
                "attempts_per_min": round(per_minute(summary["attempts"], result.wall_s), 2),
                "per_worker": per_worker,
                "attempt_s_mean": round(sum(attempt_s) / len(attempt_s), 1) if attempt_s else None,
                "attempt_s_max": max(attempt_s) if attempt_s else None,
                # The share of the N slots' time spent in attempts: below 1 the workers waited (for the last, longest
                # attempts, or for the queue); near 1 they were busy, and a rising attempt_s_mean is contention.
                "slot_busy": round(sum(attempt_s) / (count * result.wall_s), 2) if attempt_s and result.wall_s else None,
                "cpu_busy": round(result.cpu_busy, 3) if result.cpu_busy is not None else None,
                "cpu_s_by_service": cpu_by_part,
                # What this deployment used of the machine; CPU busy minus this is everything else on it.
                "own_cpu": round(sum(cpu_by_part.values()) / (cores * result.wall_s), 3) if result.wall_s else None,
                "llm_calls": summary.get("llm_calls"),
                "proceeded": summary.get("proceeded"),
                # The harness's own failures (infrastructure, grader): a run with some measured the platform failing.
                "infra_failures": sum(summary.get("by_class", {}).get(label, 0) for label in ("infrastructure", "grader")),
                "by_class": summary.get("by_class"),
                "run_state": summary.get("state"),
                "exit_code": summary.get("exit_code"),
                "run_id": summary["run_id"],
                "attempt_rows": attempts,
            }
            rows.append(row)
            progress(f"N={count}: {row['wall_s']} s, {row['attempts_per_min']} attempts/min, per worker {per_worker}, "
                     f"attempt mean {row['attempt_s_mean']} s max {row['attempt_s_max']} s, slots busy {row['slot_busy']}, "
                     f"CPU busy {row['cpu_busy']}, CPU s {cpu_by_part}")
            for attempt in attempts:
                progress(f"N={count}:   {attempt['instance']}#{attempt['repeat']} {attempt['seconds']} s, {attempt['outcome']}, "
                         f"{attempt['heal_points']} heal points, {attempt['llm_calls']} model calls")
            deployment.stop(agents)
        ok = True
    except KeyboardInterrupt:
        progress("interrupted")
    except Failure as e:
        progress(str(e))
    finally:
        # A second Ctrl-C must not cut the cleanup short.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        deployment.stop_all()
        if broker_and_database_made:
            remove_broker_and_database()
        if ok or not any(work.glob("*.log")):
            shutil.rmtree(work, ignore_errors=True)
        else:
            progress(f"the services' logs are kept in {work}")
    if not ok:
        return 1

    rows = with_ratios(rows)
    result = {
        "cores": cores,
        "load_at_start": round(load_at_start, 2),
        "latency_ms": args.latency_ms,
        "agent": "toolloop",
        "instances": instances,
        "repeats": repeats,
        "attempts_per_run": args.attempts,
        "agent_heap": AGENT_HEAP,
        "max_concurrent_attempts_per_worker": 1,
        "baseline_workers": rows[0]["workers"],
        "total_s": round(time.monotonic() - began, 1),
        "runs": rows,
    }
    table = format_table(rows)
    footer = (f"{args.attempts} attempts per run (toolloop over the stub at {args.latency_ms} ms per reply), one attempt "
              f"slot per worker, {cores} cores, load {load_at_start:.1f} at the start; whole benchmark {result['total_s']:.0f} s")
    out = sys.stderr if args.json else sys.stdout
    print(table, file=out)
    print(footer, file=out, flush=True)
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
