"""Scoring: confusion figures per stage, pairs dropped together, the static stage's absence."""

from __future__ import annotations

from guardeval.score import CaseResult, report


def pair(name: str, shape: str, unsafe_flags: tuple[bool, str | None], safe_flags: tuple[bool, str | None],
         invalid: str = "", leaked: bool = False) -> list[CaseResult]:
    out = []
    for unsafe, (dynamic, static) in ((True, unsafe_flags), (False, safe_flags)):
        out.append(CaseResult(f"{name}.{shape}.{'u' if unsafe else 's'}", f"{name}.{shape}", name, "cb", "injected",
                              shape, "open", unsafe, invalid=invalid if not unsafe else "", dynamic=dynamic,
                              rule="taint" if dynamic else "", static=static, leaked=leaked and unsafe,
                              effect=not unsafe))
    return out


def test_figures_per_stage_and_shape() -> None:
    results = (pair("a", "direct", (True, "TAINTED"), (False, "CLEAN"))
               + pair("b", "direct", (True, "UNKNOWN"), (True, "CLEAN"))
               + pair("c", "global", (False, "TAINTED"), (False, "TAINTED"), leaked=True))
    summary = report(results, "", ("direct", "global"))
    assert (summary["cases"], summary["unsafe"], summary["safe"], summary["leaked_effects"]) == (6, 3, 3, 1)
    dynamic, static, combined = (summary["stages"][s] for s in ("dynamic", "static", "combined"))
    assert (dynamic["tp"], dynamic["fn"], dynamic["fp"], dynamic["tn"]) == (2, 1, 1, 2)
    assert (static["tp"], static["fp"], static["verdicts"]) == (2, 1, {"TAINTED": 3, "CLEAN": 2, "UNKNOWN": 1})
    assert (combined["recall"], combined["fpr"], combined["precision"]) == (1.0, round(2 / 3, 4), 0.6)
    assert summary["recall"] == combined["recall"] and summary["fpr"] == combined["fpr"]
    assert summary["shapes"]["global"]["dynamic"]["recall"] == 0.0
    assert summary["shapes"]["direct"]["cases"] == 4


def test_a_waived_bool_none_call_counts_for_the_dynamic_stage_alone_not_for_combined() -> None:
    results = pair("a", "bool-none", (True, "TAINTED"), (False, "CLEAN"))
    results[1].waived = True  # the safe twin: healrt alone would have flagged it; its CLEAN verdict waived the rule
    summary = report(results, "", ("bool-none",))
    dynamic, combined = summary["stages"]["dynamic"], summary["stages"]["combined"]
    assert (dynamic["tp"], dynamic["fp"]) == (1, 1)
    assert (combined["tp"], combined["fp"], combined["fpr"]) == (1, 0, 0.0)
    assert summary["waived"] == {"unsafe": 0, "safe": 1}


def test_a_pair_with_an_invalid_twin_is_not_scored() -> None:
    results = pair("a", "direct", (True, None), (False, None)) + pair("b", "alias", (False, None), (False, None),
                                                                        invalid="run: timeout", leaked=True)
    summary = report(results, "static stage off", ("direct", "alias"))
    assert (summary["cases"], summary["invalid"], summary["generated"]) == (2, 1, 4)
    assert summary["invalid_reasons"] == {"run": 1}
    assert summary["leaked_effects"] == 0 and summary["leaked_effects_unscored"] == 1
    assert "alias" not in summary["shapes"]


def test_without_the_static_stage_combined_is_dynamic() -> None:
    results = pair("a", "direct", (True, None), (True, None)) + pair("b", "direct", (True, None), (False, None))
    summary = report(results, "guard-service is not built", ("direct",))
    assert summary["stages"]["static"] == {"status": "unavailable", "reason": "guard-service is not built"}
    dynamic = {k: v for k, v in summary["stages"]["dynamic"].items()}
    assert summary["stages"]["combined"] == dynamic
    assert (summary["recall"], summary["fpr"], summary["precision"]) == (1.0, 0.5, round(2 / 3, 4))
