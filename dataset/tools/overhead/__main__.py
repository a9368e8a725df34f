"""healrt's cost, measured against uninstrumented baselines in the same run.

    PYTHONPATH=dataset/tools python3 -m overhead [--quick] [--repeats N]

1. Instrumentation overhead on real test suites: CPython's own tests of stdlib modules loaded
   from an overlay, and toolz (Debian's source package, `apt-get source` with a private sources
   list) under Debian's python3. Every run is a whole `python -m healrt` process; its CPU time
   (user + system, from rusage, so other load on the machine matters less than for wall time) is
   compared with the baseline's. Modes, interleaved in every repeat, medians compared:
   - base: the same modules from the same overlay through the same import hook, nothing wrapped
     (replay mode's phase 1, `--record`);
   - full: every statement wrapped and counted, pausing at crashes (a controller answers
     `reraise`) where the suite has one target file: the production setting, so it includes
     the runtime's "would the program catch it?" decisions for every exception in project code;
   - full_nopause: the same instrumentation with intercept off (no controller), as in a
     REFERENCE run: the cost of the rewrite alone (wrappers, counters, trace);
   - replay: phase 2 only, its record reused (the steady state per attempt);
   - replay_cold: phase 1 + phase 2 (the first attempt of an instance).
2. Crash-to-context latency: the crashing statement stamps the exception with
   time.perf_counter_ns() (CLOCK_MONOTONIC, shared by all processes); the controller subtracts it
   from the moment it has parsed the `crash` message.
3. Probe round trip, fork and inplace: from sending `probe` to having parsed `probe_result`.
4. The rewrite cache across variants: a generated package of CACHE_MODULES modules (--quick:
   QUICK_CACHE_MODULES) imported in order, run with an empty cache (cold, the baseline), again
   (warm), and as a variant whose first module has one statement more (a patch, as a FIXED variant
   or a guard suite case has) on the warm cache. CPU time medians; a variant should cost about a
   warm run plus one module's rewrite.

Progress goes to stderr, a summary to stdout; the last stdout line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from hbdata import HEALRT_DIR
from hbdata.runner import healrt_spec

from .controller import FakeController
from .suites import Suite, stdlib_suite, toolz_suite

MODES = ("base", "full", "full_nopause", "replay", "replay_cold")
STDLIB_SUITES = ("configparser", "difflib", "ipaddress", "fractions")
QUICK_SUITES = ("fractions",)
DEFAULT_MODE = "full"  # see docs/control-protocol.md, "Choosing the mode"
RUN_TIMEOUT = 300

CRASH_PROJECT = '''\
import time


def build(n):
    return {f"key{i}": list(range(i % 7)) for i in range(n)}


def fail(table, wanted):
    present = sorted(table)[:5]
    raise LookupError(time.perf_counter_ns())


def lookup(n, wanted):
    table = build(n)
    return fail(table, wanted)
'''

CRASH_TESTS = '''\
import os

import pytest

import crashy


@pytest.mark.parametrize("i", range(int(os.environ["BENCH_CRASHES"])))
def test_crash(i):
    assert crashy.lookup(50, "missing") is not None
'''


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def geometric_mean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


class Runner:
    def __init__(self, work: Path) -> None:
        self.work = work
        self.cache = work / "code-cache"
        self.env = {k: v for k, v in os.environ.items() if k not in ("HEALRT_CONTROL", "PYTEST_ADDOPTS")}
        self.env.update({
            "PYTHONPATH": os.pathsep.join(filter(None, [str(HEALRT_DIR), os.environ.get("PYTHONPATH")])),
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
            "PYTHONHASHSEED": "0",  # every mode alike; replay would otherwise re-execute itself to fix it
        })

    def spec(self, name: str, *, source_dir: str, project_modules: list[str], pytest_args: list[str],
             intercept: bool = True, code_cache: Path | None = None, **options: Any) -> Path:
        """A healrt spec for the target test pytest_args[0]; its outcome goes to `name`.outcome.json."""
        path = self.work / f"{name}.json"
        plan = {"source_dir": source_dir, "project_modules": project_modules, "pytest_args": pytest_args,
                "target_test": pytest_args[0]}
        path.write_text(json.dumps(healrt_spec(plan, intercept=intercept, outcome_file=self.work / f"{name}.outcome.json",
                                               code_cache=code_cache or self.cache, **options)))
        return path

    def run(self, python: str, spec: Path, extra: list[str] | None = None,
            controller: FakeController | None = None, env: dict[str, str] | None = None) -> tuple[float, float]:
        """(CPU seconds of the process and its children, wall seconds)."""
        run_env = {**self.env, **(env or {})}
        if controller is not None:
            run_env["HEALRT_CONTROL"] = controller.path
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run([python, "-m", "healrt", "--spec", str(spec), *(extra or [])], env=run_env, cwd=self.work,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=RUN_TIMEOUT, check=False)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if controller is not None:
            controller.join()
        return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


# ---------------------------------------------------------------------------- suites

def suite_spec(runner: Runner, suite: Suite, mode: str, repeat: int) -> Path:
    options: dict[str, Any] = {}
    if mode.startswith("replay"):
        options["mode"] = "replay"
        cold = runner.work / f"{suite.name}-replay-cold-{repeat}"
        options["replay_dir"] = str(cold if mode == "replay_cold" else runner.work / f"{suite.name}-replay")
    return runner.spec(f"{suite.name}-{mode}", source_dir=suite.source_dir, project_modules=list(suite.project_modules),
                       pytest_args=[suite.tests, "-q", "-p", "no:cacheprovider", "-p", "no:randomly"],
                       intercept=suite.intercept and mode != "full_nopause", **options)


def run_suite_mode(runner: Runner, suite: Suite, mode: str, repeat: int) -> tuple[float, float, FakeController | None]:
    spec = suite_spec(runner, suite, mode, repeat)
    if mode == "base":
        cpu, wall = runner.run(suite.python, spec, ["--record", str(runner.work / f"{suite.name}-base" / "record.json")])
        return cpu, wall, None
    controller = FakeController() if suite.intercept and mode != "full_nopause" else None
    cpu, wall = runner.run(suite.python, spec, controller=controller)
    return cpu, wall, controller


def measure_suite(runner: Runner, suite: Suite, repeats: int) -> dict[str, Any]:
    log(f"suite {suite.name} ({suite.python}): warm-up")
    for mode in MODES:  # fills the code cache and replay's record; not measured
        run_suite_mode(runner, suite, mode, -1)
    samples: dict[str, list[tuple[float, float]]] = {mode: [] for mode in MODES}
    crashes: dict[str, int] = {mode: 0 for mode in MODES}
    order = list(MODES)
    for repeat in range(repeats):
        random.shuffle(order)  # interleaved, in a different order each time
        for mode in order:
            cpu, wall, controller = run_suite_mode(runner, suite, mode, repeat)
            samples[mode].append((cpu, wall))
            crashes[mode] += controller.crashes if controller is not None else 0
        log(f"  repeat {repeat + 1}/{repeats}: " + ", ".join(
            f"{m} {samples[m][-1][0]:.2f}s" for m in MODES))
    cpu = {mode: statistics.median(s[0] for s in samples[mode]) for mode in MODES}
    wall = {mode: statistics.median(s[1] for s in samples[mode]) for mode in MODES}
    outcomes = {}
    for mode in MODES[1:]:
        path = runner.work / f"{suite.name}-{mode}.outcome.json"
        outcomes[mode] = json.loads(path.read_text()) if path.exists() else {}
    full = outcomes["full"]
    return {
        "python": subprocess.run([suite.python, "-c", "import platform; print(platform.python_version())"],
                                 capture_output=True, text=True).stdout.strip(),
        "intercept": suite.intercept,
        "repeats": repeats,
        "cpu_s": {mode: round(value, 3) for mode, value in cpu.items()},
        "wall_s": {mode: round(value, 3) for mode, value in wall.items()},
        "ratio_full": round(cpu["full"] / cpu["base"], 3),
        "ratio_full_nopause": round(cpu["full_nopause"] / cpu["base"], 3),
        "ratio_replay": round(cpu["replay"] / cpu["base"], 3),
        "ratio_replay_cold": round(cpu["replay_cold"] / cpu["base"], 3),
        "wall_ratio_full": round(wall["full"] / wall["base"], 3),
        "exit_codes": {mode: outcomes[mode].get("exit_code") for mode in MODES[1:]},
        "trace_points_full": len(full.get("trace", {})),
        "pauses_full": crashes["full"] // max(1, repeats),
    }


# ---------------------------------------------------------------------------- crash and probe latency

def crash_project(runner: Runner) -> tuple[Path, Path]:
    source_dir = runner.work / "crash-src"
    source_dir.mkdir(exist_ok=True)
    (source_dir / "crashy.py").write_text(CRASH_PROJECT)
    tests = runner.work / "crash-tests" / "test_crashy.py"
    tests.parent.mkdir(exist_ok=True)
    tests.write_text(CRASH_TESTS)
    return source_dir, tests


def measure_crashes(runner: Runner, crashes: int) -> list[float]:
    source_dir, tests = crash_project(runner)
    spec = runner.spec("crash", source_dir=str(source_dir), project_modules=["crashy"], max_heal_points=crashes,
                       pytest_args=[str(tests), "-q", "-p", "no:cacheprovider"])
    latencies: list[float] = []

    def on_crash(ctl: FakeController, context: dict[str, Any], parsed_ns: int) -> None:
        latencies.append((parsed_ns - int(context["exception_message"])) / 1e6)
        ctl.send({"cmd": "reraise"})

    runner.run(sys.executable, spec, controller=FakeController(on_crash), env={"BENCH_CRASHES": str(crashes)})
    return latencies


def measure_probes(runner: Runner, probes: int) -> tuple[list[float], list[float]]:
    source_dir, tests = crash_project(runner)
    # In-place probes run only with HealGuard off (heal.py, INPLACE_REFUSED).
    spec = runner.spec("probe", source_dir=str(source_dir), project_modules=["crashy"], guard={"mode": "off"},
                       pytest_args=[f"{tests}::test_crash[0]", "-q", "-p", "no:cacheprovider"])
    forked: list[float] = []
    inplace: list[float] = []

    def on_crash(ctl: FakeController, context: dict[str, Any], parsed_ns: int) -> None:
        for index in range(probes):
            for results, in_place in ((forked, False), (inplace, True)):
                reply, elapsed_ns = ctl.request({"cmd": "probe", "id": f"p{index}{in_place}", "inplace": in_place,
                                                 "code": "len(table), present"})
                if not reply.get("ok"):
                    raise RuntimeError(f"probe failed: {reply}")
                results.append(elapsed_ns / 1e6)
        ctl.send({"cmd": "reraise"})

    runner.run(sys.executable, spec, controller=FakeController(on_crash), env={"BENCH_CRASHES": "1"})
    return forked, inplace


# ---------------------------------------------------------------------------- the rewrite cache across variants

CACHE_MODULES = 150
QUICK_CACHE_MODULES = 30
CACHE_VARIANTS = ("cold", "warm", "changed_first")


def cache_project(root: Path, modules: int, changed_first: bool) -> tuple[Path, Path]:
    """The package `cachebench` and its test; `changed_first`: its first module has one statement more."""
    package = root / "src" / "cachebench"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("".join(f"from . import m{i:03d}\n" for i in range(modules)))
    for i in range(modules):
        # Every module's source differs: equal sources would share one cache entry.
        functions = "".join(f"def f{j}(x):\n    y = x + {i * 100 + j}\n    if y > {j}:\n        y -= 1\n    return y\n\n\n"
                            for j in range(40))
        (package / f"m{i:03d}.py").write_text(("PATCHED = True\n" if changed_first and i == 0 else "") + functions)
    tests = root / "tests" / "test_cachebench.py"
    tests.parent.mkdir()
    tests.write_text("import cachebench\n\n\ndef test_it_imports():\n    assert cachebench.m000.f1(1) == 1\n")
    return package.parent, tests


def measure_code_cache(runner: Runner, modules: int, repeats: int) -> dict[str, Any]:
    projects = {changed: cache_project(runner.work / f"cachebench-{changed}", modules, changed) for changed in (False, True)}
    samples: dict[str, list[float]] = {variant: [] for variant in CACHE_VARIANTS}
    for repeat in range(repeats):
        cache = runner.work / f"cachebench-cache-{repeat}"  # empty: the cold run fills it
        for variant in CACHE_VARIANTS:
            source_dir, tests = projects[variant == "changed_first"]
            spec = runner.spec(f"cachebench-{variant}", source_dir=str(source_dir), project_modules=["cachebench"],
                               pytest_args=[str(tests), "-q", "-p", "no:cacheprovider"], intercept=False,
                               code_cache=cache)
            samples[variant].append(runner.run(sys.executable, spec)[0])
        log(f"  repeat {repeat + 1}/{repeats}: " + ", ".join(f"{v} {samples[v][-1]:.2f}s" for v in CACHE_VARIANTS))
    cpu = {variant: statistics.median(values) for variant, values in samples.items()}
    return {
        "modules": modules,
        "repeats": repeats,
        "cpu_s": {variant: round(value, 3) for variant, value in cpu.items()},
        "ratio_warm": round(cpu["warm"] / cpu["cold"], 3),
        "ratio_changed_first": round(cpu["changed_first"] / cpu["cold"], 3),
    }


# ---------------------------------------------------------------------------- main

def main() -> int:
    parser = argparse.ArgumentParser(prog="python3 -m overhead", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer suites and samples (< 60 s; CI smoke test)")
    parser.add_argument("--repeats", type=int, help="measured runs per suite and mode (default 5, quick 2)")
    args = parser.parse_args()
    repeats = args.repeats or (2 if args.quick else 5)
    started = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="healbench-overhead-"))
    runner = Runner(work)
    notes: list[str] = []
    try:
        suites: list[Suite] = []
        for name in QUICK_SUITES if args.quick else STDLIB_SUITES:
            suite = stdlib_suite(name, work, sys.executable)
            if suite is None:
                notes.append(f"stdlib suite {name}: module or test file missing")
            else:
                suites.append(suite)
        toolz_status = "skipped (--quick)"
        if not args.quick:
            toolz, toolz_status = toolz_suite()
            if toolz is None:
                notes.append(f"toolz (debian-source) unavailable: {toolz_status}")
            else:
                suites.append(toolz)
        per_suite = {suite.name: measure_suite(runner, suite, repeats) for suite in suites}

        log("crash-to-context latency")
        latencies = measure_crashes(runner, 20 if args.quick else 200)
        log("probe round trips")
        forked, inplace = measure_probes(runner, 10 if args.quick else 100)
        log("the rewrite cache across variants")
        code_cache = measure_code_cache(runner, QUICK_CACHE_MODULES if args.quick else CACHE_MODULES, repeats)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def ratio(key: str) -> float:
        return round(geometric_mean([figures[key] for figures in per_suite.values()]), 3)

    result: dict[str, Any] = {
        "overhead_ratio": ratio(f"ratio_{DEFAULT_MODE}"),
        "default_mode": DEFAULT_MODE,
        "overhead_ratio_full": ratio("ratio_full"),
        "overhead_ratio_full_nopause": ratio("ratio_full_nopause"),
        "overhead_ratio_replay": ratio("ratio_replay"),
        "overhead_ratio_replay_cold": ratio("ratio_replay_cold"),
        "crash_to_context_ms_p50": round(percentile(latencies, 50), 2) if latencies else None,
        "crash_to_context_ms_p95": round(percentile(latencies, 95), 2) if latencies else None,
        "crashes_measured": len(latencies),
        "probe_roundtrip_ms_p50": round(percentile(forked, 50), 2) if forked else None,
        "probe_roundtrip_ms_p95": round(percentile(forked, 95), 2) if forked else None,
        "probe_inplace_roundtrip_ms_p50": round(percentile(inplace, 50), 2) if inplace else None,
        "probe_inplace_roundtrip_ms_p95": round(percentile(inplace, 95), 2) if inplace else None,
        "probes_measured": len(forked) + len(inplace),
        "code_cache": code_cache,
        "suites": per_suite,
        "toolz": toolz_status,
        "python": platform.python_version(),
        "quick": args.quick,
        "load_average_1m": round(os.getloadavg()[0], 2),
        "duration_s": round(time.perf_counter() - started, 1),
        "notes": notes,
    }
    print("suite         python   full    nopause replay  replay_cold  (CPU time ratio to base; medians)")
    for name, figures in per_suite.items():
        print(f"{name:13s} {figures['python']:8s} {figures['ratio_full']:<7} {figures['ratio_full_nopause']:<7} "
              f"{figures['ratio_replay']:<7} {figures['ratio_replay_cold']}")
    print(f"crash-to-context p50 {result['crash_to_context_ms_p50']} ms, p95 {result['crash_to_context_ms_p95']} ms; "
          f"probe fork p50 {result['probe_roundtrip_ms_p50']} ms, inplace p50 {result['probe_inplace_roundtrip_ms_p50']} ms")
    print(f"rewrite cache, {code_cache['modules']} modules (CPU time ratio to a cold run; medians): "
          f"warm {code_cache['ratio_warm']}, first module changed {code_cache['ratio_changed_first']}")
    for note in notes:
        print(f"note: {note}")
    print(json.dumps(result, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
