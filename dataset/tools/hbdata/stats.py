"""`hbdata stats` (docs/dataset.md §7): validates what has no record for its current digest, then
counts the validated instances by code base, tier and error type, next to the reference benchmark's
repositories and error-type order (reference.py)."""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from typing import Any, TextIO

from . import reference
from .instances import Instance, load_all
from .validate import print_verdict, read_record, unvalidated, validate_many


def stats_command(args: argparse.Namespace, out: TextIO | None = None, progress: TextIO | None = None) -> int:
    out, progress = out or sys.stdout, progress or sys.stderr  # looked up at call time: tests capture them
    instances, errors = load_all(args.dataset)
    for error in errors:
        print(f"malformed: {error}", file=progress)
    pending = unvalidated(instances)
    if pending:
        print(f"validating {len(pending)} instance(s) without a record on this machine", file=progress)
        validate_many(pending, args.runs, args.jobs, args.timeout, lambda v: print_verdict(v, progress))
    records = {instance.id: read_record(instance) for instance in instances}
    validated = [i for i in instances if (records[i.id] or {}).get("passed")]
    # Malformed instances count as instances that failed validation.
    summary = summarize(validated, total=len(instances) + len(errors))
    print_table(validated, summary, out)
    if args.json:
        print(json.dumps(summary, sort_keys=True), file=out)
    return 0


def summarize(validated: list[Instance], total: int) -> dict[str, Any]:
    tiers = Counter(i.tier for i in validated)
    error_types = Counter(i.expected_crash.type for i in validated)
    codebases = Counter(i.codebase for i in validated)
    return {
        "instances": total,
        "validated": len(validated),
        "failed": total - len(validated),
        "real_bug": tiers["real-bug"],
        "upstream_issues": len({upstream for i in validated if (upstream := upstream_reference(i))}),
        "injected": tiers["injected"],
        "subjects": len(codebases),
        "by_subject": dict(sorted(codebases.items())),
        "by_error_type": dict(sorted(error_types.items())),
        "reference_codebases": len(reference.codebases_covered(codebases)),
        "reference_error_order": reference.error_order_holds(error_types),
    }


def upstream_reference(instance: Instance) -> tuple[str, str] | None:
    """A real bug's upstream issue, per code base, in one spelling: "GH 2785", "gh-2785", "aiohttp#2785" and "PR 2785"
    name one GitHub number (issues and pull requests share them); "bpo-14074" (CPython's old tracker) and a commit
    ("isodate@f3a1b2c") are kept as they are. None for an injected instance."""
    issue = str(instance.provenance.get("issue") or "").strip().lower()
    if instance.tier != "real-bug" or not issue:
        return None
    github = re.fullmatch(r"(?:gh|pr|[\w.-]*#)[\s-]*(\d+)", issue)
    return instance.codebase, f"github {github[1]}" if github else re.sub(r"\s+", "", issue)


def print_table(validated: list[Instance], summary: dict[str, Any], out: TextIO) -> None:
    rows = sorted(Counter((i.codebase, i.tier, i.expected_crash.type) for i in validated).items())
    header = ("code base", "tier", "error type", "count")
    cells = [header] + [(codebase, tier, error, str(count)) for (codebase, tier, error), count in rows]
    widths = [max(len(row[col]) for row in cells) for col in range(len(header))]
    for row in cells:
        print("  ".join(cell.rjust(w) if col == 3 else cell.ljust(w) for col, (cell, w) in enumerate(zip(row, widths))),
              file=out)
    print(f"validated {summary['validated']} of {summary['instances']} instance(s): {summary['real_bug']} real-bug "
          f"(from {summary['upstream_issues']} upstream issues), {summary['injected']} injected, "
          f"{summary['subjects']} code base(s); {summary['failed']} failed", file=out)
    order = " > ".join(reference.ERROR_ORDER)
    print(f"the reference's repositories covered: {summary['reference_codebases']} of {len(reference.REPOSITORIES)}; "
          f"its leading error types ({order}) {'lead' if summary['reference_error_order'] else 'do not lead'} "
          f"in that order here", file=out)
