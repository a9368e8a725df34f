"""What the commands print: one stdout line per attempt, then (with --json) the summary line.

With --json every stdout line is a JSON object, so a caller can parse all of them and take the last
as the summary; without it the attempt lines are for people. Diagnostics go to stderr.
"""

from __future__ import annotations

import json
import sys
from typing import TextIO

from healbench_client.model import AttemptReport, RunSummary


def attempt_line(report: AttemptReport, as_json: bool) -> str:
    fields = {"attempt": report.attempt, "instance_id": report.instance_id,
              "heal_points": report.heal_points, "heals_applied": report.heals_applied,
              "proceeded": report.proceeded}
    if report.errors:
        fields["errors"] = list(report.errors)
    if as_json:
        return json.dumps(fields, sort_keys=False)
    text = (f"{report.attempt} instance={report.instance_id} heal_points={report.heal_points} "
            f"heals_applied={report.heals_applied} proceeded={str(report.proceeded).lower()}")
    return text + (f" errors={','.join(report.errors)}" if report.errors else "")


def summary_line(summary: RunSummary) -> str:
    return json.dumps(summary.as_json_dict())


class Printer:
    def __init__(self, as_json: bool, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self.as_json = as_json
        self.out = out or sys.stdout
        self.err = err or sys.stderr

    def attempt(self, report: AttemptReport) -> None:
        print(attempt_line(report, self.as_json), file=self.out, flush=True)

    def error(self, message: str) -> None:
        print(f"healbench-client: {message}", file=self.err, flush=True)

    def summary(self, summary: RunSummary) -> None:
        if self.as_json:
            print(summary_line(summary), file=self.out, flush=True)
        else:
            print(f"attempts={summary.attempts} heals_applied={summary.heals_applied} "
                  f"proceeded={summary.proceeded} errors={summary.errors}", file=self.err, flush=True)
