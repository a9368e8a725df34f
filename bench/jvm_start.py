#!/usr/bin/env python3
"""What the tests' JVM options save: the JVMs the Java tests start, with the JVM's defaults and with those options.

    python3 bench/jvm_start.py [--repeats 5] [--json]

The Java tests start the packaged apps as JVMs of their own (test-support's JavaCommand), with the options in
test-support/src/main/resources/io/healbench/testsupport/short-lived-jvm.options. This script times two such starts,
each with the JVM's defaults (the baseline) and with those options, alternating the two in every repeat so that other
work on the machine falls on both alike:

- `runs list`: the standalone app, from its jar to its exit, on a run store of its own (made by one unmeasured run
  first). It boots the whole platform and its embedded PostgreSQL, as every command of the tests' standalone runs does.
- `guard-service`: the service, from its jar until /q/health/ready answers 200; then it is stopped.

For each it prints the medians of the wall time and of the CPU time (user and system, the JVM's and its children's)
and their ratios against the baseline. Progress goes to stderr; the table to stdout, or with --json one JSON object.

Prerequisites: the two jars, built by `mvn -B -q -o install -DskipTests`; this script never builds. Exit status 1, with
a message, when a jar is missing or a JVM fails.
"""
from __future__ import annotations

import argparse
import base64
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
OPTIONS_FILE = ROOT / "test-support/src/main/resources/io/healbench/testsupport/short-lived-jvm.options"
STANDALONE_JAR = ROOT / "standalone/target/quarkus-app/quarkus-run.jar"
GUARD_JAR = ROOT / "guard-service/target/quarkus-app/quarkus-run.jar"
READY_WITHIN_S = 120.0

Measure = Callable[[list[str]], tuple[float, float]]


def cpu_of_children() -> float:
    usage = os.times()
    return usage.children_user + usage.children_system


def runs_list(store: Path) -> Measure:
    """`healbench runs list` on `store`: its wall and CPU seconds."""
    env = {**os.environ, "HEALBENCH_HOME": str(ROOT), "HEALBENCH_STORE": str(store)}

    def measure(options: list[str]) -> tuple[float, float]:
        cpu = cpu_of_children()
        started = time.monotonic()
        done = subprocess.run(["java", *options, "-jar", str(STANDALONE_JAR), "runs", "list"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wall = time.monotonic() - started
        if done.returncode != 0:
            sys.exit(f"jvm_start: runs list {options} exited with {done.returncode}:\n{done.stderr[-2000:]}")
        return wall, cpu_of_children() - cpu
    return measure


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def guard_service_ready(options: list[str]) -> tuple[float, float]:
    """guard-service from its jar until it is ready: wall and CPU seconds (the CPU up to its stop)."""
    port = free_port()
    env = {**os.environ, "HEALBENCH_SERVICE_AUTH_KEY": base64.b64encode(secrets.token_bytes(32)).decode()}
    command = ["java", "-Xmx512m", *options, "-Dquarkus.http.host=127.0.0.1", f"-Dquarkus.http.port={port}",
               f"-Dhealbench.home={ROOT}", "-jar", str(GUARD_JAR)]
    with tempfile.TemporaryFile() as log:
        cpu = cpu_of_children()
        started = time.monotonic()
        service = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            while True:
                if service.poll() is not None:
                    log.seek(0)
                    sys.exit(f"jvm_start: guard-service {options} exited with {service.returncode}:\n"
                             f"{log.read().decode(errors='replace')[-2000:]}")
                if time.monotonic() - started > READY_WITHIN_S:
                    sys.exit(f"jvm_start: guard-service {options} not ready within {READY_WITHIN_S:.0f} s")
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/q/health/ready", timeout=2) as answer:
                        if answer.status == 200:
                            break
                except (urllib.error.URLError, ConnectionError, TimeoutError):
                    pass
                time.sleep(0.05)
            wall = time.monotonic() - started
        finally:
            service.terminate()
            service.wait(30)
        return wall, cpu_of_children() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="starts of each kind with each set of options")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = parser.parse_args()
    for jar in (STANDALONE_JAR, GUARD_JAR):
        if not jar.is_file():
            sys.exit(f"jvm_start: {jar} is missing; build it: mvn -B -q -o install -DskipTests")
    short_lived = [line.strip() for line in OPTIONS_FILE.read_text().splitlines() if line.strip()]
    variants = {"defaults": [], "short-lived": short_lived}

    with tempfile.TemporaryDirectory(prefix="jvm-start-store") as store:
        starts: dict[str, Measure] = {"runs list": runs_list(Path(store)), "guard-service": guard_service_ready}
        starts["runs list"]([])  # makes the store's database; not measured
        samples: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for repeat in range(args.repeats):
            for start_name, measure in starts.items():
                for variant, options in variants.items():
                    wall, cpu = measure(options)
                    samples.setdefault((start_name, variant), []).append((wall, cpu))
                    print(f"jvm_start: {repeat + 1}/{args.repeats} {start_name} {variant}: {wall:.2f} s wall, "
                          f"{cpu:.2f} s CPU", file=sys.stderr, flush=True)

    rows = []
    for start_name in starts:
        medians = {variant: (statistics.median(w for w, _ in samples[(start_name, variant)]),
                             statistics.median(c for _, c in samples[(start_name, variant)])) for variant in variants}
        (base_wall, base_cpu), (wall, cpu) = medians["defaults"], medians["short-lived"]
        rows.append({"start": start_name, "defaults_wall_s": round(base_wall, 2), "defaults_cpu_s": round(base_cpu, 2),
                     "short_lived_wall_s": round(wall, 2), "short_lived_cpu_s": round(cpu, 2),
                     "wall_ratio": round(wall / base_wall, 3), "cpu_ratio": round(cpu / base_cpu, 3)})
    result = {"cores": os.cpu_count(), "repeats": args.repeats, "short_lived_options": short_lived, "starts": rows}
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{'start':<14} {'defaults wall':>14} {'CPU':>7} {'short-lived wall':>17} {'CPU':>7} {'wall ratio':>11} {'CPU ratio':>10}")
    for row in rows:
        print(f"{row['start']:<14} {row['defaults_wall_s']:>12.2f} s {row['defaults_cpu_s']:>5.2f} s "
              f"{row['short_lived_wall_s']:>15.2f} s {row['short_lived_cpu_s']:>5.2f} s "
              f"{row['wall_ratio']:>11.3f} {row['cpu_ratio']:>10.3f}")
    print(f"medians of {args.repeats} starts each; options {' '.join(short_lived)}; {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
