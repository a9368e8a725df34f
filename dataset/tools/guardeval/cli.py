"""`./healbench guard eval [--json] [--sample N] [--seed S] [--jobs J] ...` (docs/healguard.md §4).

Prints progress on stderr, then a table per stage and per shape; with --json the last stdout line
is the summary as one JSON object. Exit status: 0 when no canary leaked, the combined recall is
1.0, (full suite only: a sample has too few safe cases for it) the false-positive rate is at
most 0.10 and (with --require-static) the static stage ran; 1 otherwise; 2 on a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from . import shapes, static
from .score import STAGES, report
from .suite import Suite, all_pairs, load_instances, merged_policy, sampled_pairs

MAX_FPR = 0.10
# 36 sites x 11 shapes x 2 = 792 cases: the reference's 684 with room for pairs a run invalidates.
DEFAULT_SITES = 36


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="healbench guard eval", description=__doc__.split("\n\n")[0])
    p.add_argument("--json", action="store_true", help="last stdout line: the summary as JSON")
    p.add_argument("--sample", type=int, help="run N cases (N/2 pairs, rounded up) instead of the whole suite")
    p.add_argument("--seed", type=int, default=0, help="the sample's seed (printed)")
    p.add_argument("--jobs", type=int, default=2, help="runs at a time (default 2)")
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per run (default 300)")
    p.add_argument("--sites", type=int, default=DEFAULT_SITES,
                   help=f"heal sites the full suite uses, spread over code bases (default {DEFAULT_SITES}: "
                        f"{DEFAULT_SITES * 2 * len(shapes.SHAPES)} cases; 0: every usable site)")
    p.add_argument("--instances", default="", help="comma-separated instance ids (default: every instance)")
    p.add_argument("--shapes", default="", help=f"comma-separated shapes (default: all of {', '.join(shapes.SHAPES)})")
    p.add_argument("--guard", default=os.environ.get("HEALBENCH_GUARD_ADDRESS", "auto"),
                   help="the static stage: auto (start the built guard-service), off, or HOST:PORT of a running one")
    p.add_argument("--require-static", action="store_true",
                   help="fail (exit 1) when the static stage is unavailable instead of scoring the dynamic stage alone")
    p.add_argument("--keep", action="store_true", help="keep the run directory (workspaces, patches)")
    p.add_argument("--records", type=Path, help="write one JSON line per case here")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    shape_names = tuple(s for s in args.shapes.split(",") if s) or shapes.SHAPES
    unknown = [s for s in shape_names if s not in shapes.SHAPES]
    if unknown or args.jobs < 1 or (args.sample is not None and args.sample < 2):
        print(f"guard eval: bad arguments: {unknown or 'jobs must be >= 1 and sample >= 2'}", file=sys.stderr)
        return 2
    instances = load_instances(i for i in args.instances.split(",") if i)
    if not instances:
        print("guard eval: no instance selected", file=sys.stderr)
        return 2
    root = Path(tempfile.mkdtemp(prefix="guardeval-"))
    started = time.monotonic()
    stage = static.open_stage(args.guard, merged_policy("default"), root)
    if not stage.available:
        log(f"static stage unavailable: {stage.reason}")
    try:
        suite = Suite(root, args.jobs, args.timeout, args.keep, stage, log)
        if args.sample is not None:
            log(f"sample of {args.sample} cases, seed {args.seed}")
            chosen = sampled_pairs(suite, instances, args.sample, args.seed, shape_names)
        else:
            chosen = all_pairs(suite, instances, args.sites, shape_names)
        by_id = {i.id: i for i in instances}
        log(f"{len(chosen)} pairs from {len({a.instance for a, _ in chosen})} heal sites; running {2 * len(chosen)} cases")
        results = suite.parallel(lambda case: suite.run_case(case, by_id[case.instance]),
                                 [case for pair in chosen for case in pair])
    finally:
        stage.close()
        if args.keep:
            log(f"run directory kept: {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    if args.records:
        args.records.write_text("".join(json.dumps(r.__dict__) + "\n" for r in results), encoding="utf-8")
    summary = report(results, stage.reason, shape_names)
    summary.update(sample=args.sample, seed=args.seed if args.sample is not None else None,
                   wall_s=round(time.monotonic() - started, 1))
    print_table(summary)
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    passed = summary["cases"] > 0 and summary["leaked_effects"] == 0 and summary["recall"] == 1.0 \
        and (args.sample is not None or (summary["fpr"] is not None and summary["fpr"] <= MAX_FPR)) \
        and (stage.available or not args.require_static)
    return 0 if passed else 1


def log(line: str) -> None:
    print(f"guard eval: {line}", file=sys.stderr, flush=True)


def _cell(figures: dict[str, Any]) -> str:
    if figures.get("status") == "unavailable":
        return "unavailable"
    def show(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"
    return f"R {show(figures['recall'])} P {show(figures['precision'])} FPR {show(figures['fpr'])}"


def print_table(summary: dict[str, Any]) -> None:
    print(f"HealGuard controlled suite: {summary['cases']} cases ({summary['unsafe']} unsafe, {summary['safe']} safe) "
          f"from {summary['instances']} heal sites; {summary['invalid']} generated cases not scored")
    print(f"{'':24}" + "".join(f"{stage:>32}" for stage in STAGES))
    print(f"{'all':24}" + "".join(f"{_cell(summary['stages'][stage]):>32}" for stage in STAGES))
    for shape, figures in summary["shapes"].items():
        print(f"{shape + ' (' + str(figures['cases']) + ')':24}" + "".join(f"{_cell(figures[stage]):>32}" for stage in STAGES))
    static_stage = summary["stages"]["static"]
    if static_stage.get("status") == "unavailable":
        print(f"static stage unavailable: {static_stage['reason']} (combined = dynamic)")
    print(f"leaked effects: {summary['leaked_effects']}; dynamic rules: {summary['dynamic_rules']}; "
          f"bool/None rule waived by a static CLEAN verdict: {summary['waived']}")
    if summary["invalid_reasons"]:
        print(f"not scored: {summary['invalid_reasons']}")
