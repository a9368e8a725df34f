#!/usr/bin/env python3
"""Throughput gain of parallel attempts for an LLM agent: one slice at --parallel 1 and at --parallel N, over a slow model.

    python3 bench/llm_throughput.py [--attempts 16] [--parallel 8] [--latency-ms 2000] [-- SLICE-OPTIONS...]

It starts the scripted LLM server (`./healbench llm-stub --script scripts/llm-stub/toolloop-heal.yaml --port 0
--latency-ms MS`, which waits MS before every reply, standing in for a hosted model) on a free loopback port, writes
a temporary backbones file whose `stub` backbone points at it, and runs the same slice with
`./healbench run --json --agent toolloop --backbone stub --backbones FILE --parallel P` at P = 1 and at P = N, each
timed from the command's start to its exit. The slice is `--subject cpython-stdlib --limit ATTEMPTS`; options after
`--` replace `--subject cpython-stdlib` (e.g. `-- --subject toolz`), and `--limit ATTEMPTS` is added unless they
give `--limit`. Before measuring it runs the slice once, unmeasured, at --parallel N against the same server, so both
measured runs find the subjects and every REFERENCE run cached. The runs themselves are `run()` of
bench/parallel_runs.py.

Progress goes to stderr; the last stdout line is one JSON object: cores, latency_ms, attempts, parallel, serial_s,
parallel_s, ratio (serial_s / parallel_s), goal (the ratio aimed at, 5) and each run's summary (proceeded, llm_calls,
cost_usd, failures, exit_code). Exit status 1, with a message, when the server does not start or a run ends without
its summary line. The server is killed on every exit.
"""
from __future__ import annotations

import argparse
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NoReturn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from parallel_runs import LAUNCHER, ROOT, run  # noqa: E402  (bench/ is not a package)
from stub_backbone import stub_backbones  # noqa: E402

LABEL = "llm_throughput"
SCRIPT = "scripts/llm-stub/toolloop-heal.yaml"
GOAL = 5
STUB_START_S = 60.0
SUMMARY_KEYS = ("proceeded", "llm_calls", "cost_usd", "failures", "exit_code")


def progress(message: str) -> None:
    print(f"{LABEL}: {message}", file=sys.stderr, flush=True)


def fail(message: str) -> NoReturn:
    sys.exit(f"{LABEL}: {message}")


def start_stub(latency_ms: int) -> tuple[subprocess.Popen[str], str]:
    """The scripted server on an ephemeral loopback port, and the OpenAI base URL from its start line."""
    # Unmeasured, untimed: lets the launcher build its jar first if the sources are newer (it prints usage and exits).
    subprocess.run([str(LAUNCHER), "llm-stub", "--help"], cwd=ROOT, stdout=subprocess.DEVNULL, check=False)
    command = [str(LAUNCHER), "llm-stub", "--script", SCRIPT, "--host", "127.0.0.1", "--port", "0",
               "--latency-ms", str(latency_ms)]
    progress(" ".join(command[1:]))
    stub = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert stub.stdout is not None
    deadline = time.monotonic() + STUB_START_S
    with selectors.DefaultSelector() as selector:
        selector.register(stub.stdout, selectors.EVENT_READ)
        while not selector.select(timeout=max(0.0, deadline - time.monotonic())):
            if time.monotonic() >= deadline:
                stop_stub(stub)
                fail(f"llm-stub printed no start line within {STUB_START_S:.0f} s")
    line = stub.stdout.readline()
    try:
        base_url = json.loads(line)["openai_base_url"]
    except (ValueError, KeyError, TypeError):
        code = stop_stub(stub)
        fail(f"llm-stub did not start (exit {code}): its first line was {line.strip()!r}")
    progress(f"llm-stub serving at {base_url}, {latency_ms} ms per reply")
    return stub, base_url


def stop_stub(stub: subprocess.Popen[str]) -> int | None:
    """Ends the server (the launcher execs java, so the pid is the server's) and returns its exit status."""
    if stub.poll() is None:
        stub.terminate()
        try:
            stub.wait(timeout=10)
        except subprocess.TimeoutExpired:
            stub.kill()
            stub.wait()
    if stub.stdout is not None:
        stub.stdout.close()
    return stub.returncode


def slice_options(attempts: int, extra: list[str]) -> list[str]:
    options = extra or ["--subject", "cpython-stdlib"]
    return options if "--limit" in options else [*options, "--limit", str(attempts)]


def summary_of(summary: dict[str, Any]) -> dict[str, Any]:
    return {key: summary.get(key) for key in SUMMARY_KEYS}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=16, help="the slice's --limit (default 16)")
    parser.add_argument("--parallel", type=int, default=8, help="the parallel run's attempts at once (default 8)")
    parser.add_argument("--latency-ms", type=int, default=2000, help="the server's wait before every reply (default 2000)")
    parser.add_argument("options", nargs=argparse.REMAINDER, help="after --: slice options replacing --subject cpython-stdlib")
    args = parser.parse_args()
    if args.attempts < 1 or args.parallel < 1 or args.latency_ms < 0:
        parser.error("--attempts and --parallel must be at least 1, --latency-ms at least 0")
    options = slice_options(args.attempts, [o for o in args.options if o != "--"])
    # A plain `kill` ends the benchmark through the finally below, so the server goes with it.
    signal.signal(signal.SIGTERM, lambda signum, frame: fail("terminated"))

    stub: subprocess.Popen[str] | None = None
    backbones: Path | None = None
    try:
        stub, base_url = start_stub(args.latency_ms)
        with tempfile.NamedTemporaryFile("w", prefix="healbench-backbones-", suffix=".yaml", delete=False) as file:
            file.write(stub_backbones(base_url))
            backbones = Path(file.name)
        agent = ["--agent", "toolloop", "--backbone", "stub", "--backbones", str(backbones), *options]
        progress("warm-up (not measured)")
        run(agent, args.parallel, LABEL)
        serial_s, serial = run(agent, 1, LABEL)
        parallel_s, parallel = run(agent, args.parallel, LABEL)
        if stub.poll() is not None:
            fail(f"llm-stub exited during the runs (exit {stub.returncode})")
    finally:
        if stub is not None:
            stop_stub(stub)
        if backbones is not None:
            backbones.unlink(missing_ok=True)

    if serial["attempts"] != parallel["attempts"]:
        progress(f"warning: the runs had {serial['attempts']} and {parallel['attempts']} attempts")
    if serial["attempts"] != args.attempts:
        progress(f"note: the slice has {serial['attempts']} attempts, not --attempts {args.attempts}")
    result = {
        "cores": os.cpu_count(),
        "latency_ms": args.latency_ms,
        "attempts": serial["attempts"],
        "slice": options,
        "parallel": args.parallel,
        "serial_s": round(serial_s, 1),
        "parallel_s": round(parallel_s, 1),
        "ratio": round(serial_s / parallel_s, 3),
        "goal": GOAL,
        "llm_calls_per_attempt": round(serial["llm_calls"] / serial["attempts"], 2) if serial["attempts"] else None,
        "serial_summary": summary_of(serial),
        "parallel_summary": summary_of(parallel),
    }
    print(f"--parallel 1: {serial_s:.1f} s; --parallel {args.parallel}: {parallel_s:.1f} s; ratio {result['ratio']:.2f}x "
          f"(goal {GOAL}x) on {os.cpu_count()} cores, {args.latency_ms} ms per model reply")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
