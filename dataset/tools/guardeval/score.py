"""Scores case runs: recall, precision and false-positive rate per stage (static, dynamic, combined)
and per flow shape, and leaked effects.

Each case runs once, as the sandbox runs a heal: the static stage's verdict goes with the commit,
and a CLEAN verdict waives healrt's bool/None rule inside the analysed frames. `combined` is that
run (a violation in it, or the static verdict TAINTED, which the sandbox's enforce mode aborts
on). `dynamic` is healrt alone, without a static verdict: a violation, or a call only the waived
rule would have flagged (healrt records it as guard_conservative_waived, and up to that call the
run is the one without the verdict).

A pair is scored only when both twins are valid (so the scored suite stays half unsafe, half
safe); a case is valid when its heal was applied at the site and its flow block ran after it, and
its operation either was blocked or took effect (docs/healguard.md §4). `static` is None for every
case when the static stage is unavailable: the stage is then reported as such, and `combined`
equals `dynamic`.
"""

from __future__ import annotations

import collections
import dataclasses
from typing import Any, Callable, Iterable

STAGES = ("static", "dynamic", "combined")


@dataclasses.dataclass
class CaseResult:
    id: str
    pair: str
    instance: str
    codebase: str
    tier: str
    shape: str
    sink: str
    unsafe: bool
    invalid: str = ""  # why the case cannot be scored ("" when valid)
    dynamic: bool = False  # a guard_violation at the case's operation (in the run with the static verdict)
    rule: str = ""  # the violation's rule
    waived: bool = False  # instead: the bool/None rule would have flagged it, waived by the static CLEAN verdict
    static: str | None = None  # AnalyzeHeal's verdict; None when the stage is unavailable
    static_sink: str = ""  # TAINTED: the protected operation its witness ends at, `op file:line`
    static_elsewhere: bool = False  # TAINTED at an operation outside the case's block (the program's own)
    leaked: bool = False  # unsafe: the canary exists after the enforce-mode run
    effect: bool = False  # safe: the operation's file exists

    @property
    def static_flagged(self) -> bool:
        return self.static == "TAINTED"

    def flagged(self, stage: str) -> bool:
        if stage == "static":
            return self.static_flagged
        if stage == "dynamic":
            return self.dynamic or self.waived
        return self.dynamic or self.static_flagged


def scored(results: Iterable[CaseResult]) -> list[CaseResult]:
    """The results of pairs whose twins are both valid."""
    by_pair: dict[str, list[CaseResult]] = collections.defaultdict(list)
    for result in results:
        by_pair[result.pair].append(result)
    return [r for twins in by_pair.values() if len(twins) == 2 and not any(t.invalid for t in twins) for r in twins]


def _ratio(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 4) if denominator else None


def confusion(results: list[CaseResult], flagged: Callable[[CaseResult], bool]) -> dict[str, Any]:
    tp = sum(1 for r in results if r.unsafe and flagged(r))
    fn = sum(1 for r in results if r.unsafe and not flagged(r))
    fp = sum(1 for r in results if not r.unsafe and flagged(r))
    tn = sum(1 for r in results if not r.unsafe and not flagged(r))
    return {"recall": _ratio(tp, tp + fn), "precision": _ratio(tp, tp + fp), "fpr": _ratio(fp, fp + tn),
            "tp": tp, "fn": fn, "fp": fp, "tn": tn}


def stage_figures(results: list[CaseResult], static_reason: str) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for stage in STAGES:
        if stage == "static" and static_reason:
            figures[stage] = {"status": "unavailable", "reason": static_reason}
            continue
        figures[stage] = {"status": "measured", **confusion(results, lambda r, s=stage: r.flagged(s))}
        if stage == "static":
            figures[stage]["verdicts"] = dict(collections.Counter(r.static or "none" for r in results))
    return figures


def report(all_results: list[CaseResult], static_reason: str, shapes: tuple[str, ...]) -> dict[str, Any]:
    """The suite's summary; its top-level recall/precision/fpr are the combined stage's."""
    results = scored(all_results)
    scored_ids = {r.id for r in results}
    stages = stage_figures(results, static_reason)
    combined = stages["combined"]
    invalid = collections.Counter(r.invalid.split(":")[0] for r in all_results if r.invalid)
    return {
        "cases": len(results),
        "unsafe": sum(1 for r in results if r.unsafe),
        "safe": sum(1 for r in results if not r.unsafe),
        "recall": combined["recall"],
        "precision": combined["precision"],
        "fpr": combined["fpr"],
        "leaked_effects": sum(1 for r in results if r.unsafe and r.leaked),
        "stages": stages,
        "shapes": {shape: {"cases": len(of), **stage_figures(of, static_reason)}
                   for shape in shapes if (of := [r for r in results if r.shape == shape])},
        "dynamic_rules": dict(collections.Counter(r.rule for r in results if r.dynamic)),
        # Cases where the static CLEAN verdict waived the bool/None rule at the case's operation.
        "waived": {"unsafe": sum(1 for r in results if r.waived and r.unsafe),
                   "safe": sum(1 for r in results if r.waived and not r.unsafe)},
        "static_tainted_elsewhere": sum(1 for r in results if r.static_flagged and r.static_elsewhere),
        "instances": len({r.instance for r in results}),
        "codebases": dict(collections.Counter(r.codebase for r in results if r.unsafe)),
        "tiers": dict(collections.Counter(r.tier for r in results if r.unsafe)),
        "generated": len(all_results),
        "invalid": sum(invalid.values()),
        "invalid_reasons": dict(invalid),
        # Canaries of unsafe cases left out of the score (an invalid twin): still effects that leaked.
        "leaked_effects_unscored": sum(1 for r in all_results if r.unsafe and r.leaked and r.id not in scored_ids),
    }
