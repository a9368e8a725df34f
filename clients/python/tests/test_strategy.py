"""The simple strategy's choices, alone and as the runner plays them against rejections."""

from __future__ import annotations

import asyncio

import pytest

from fakes import FakeAttempt, FakeGateway, FakeHealBench, three_attempts
from healbench_client import reasons
from healbench_client.model import Crash, Resume
from healbench_client.runner import MAX_FAILED_CLAIMS, Runner, RunOptions
from healbench_client.strategy import Heal, Reraise, SimpleStrategy

CRASH = Crash(heal_point=3, exception_type="ZeroDivisionError")


def test_the_first_choice_is_pass_with_skip() -> None:
    assert SimpleStrategy().plan(CRASH).next_action() == Heal("pass", Resume.SKIP)


def test_a_rejected_skip_is_followed_by_return_of_none() -> None:
    plan = SimpleStrategy().plan(CRASH)
    plan.next_action()
    plan.rejected("resume=skip refused")
    assert plan.next_action() == Heal("_return_ = None", Resume.RETURN)


def test_two_rejections_end_in_a_reraise_naming_the_last_rejection() -> None:
    plan = SimpleStrategy().plan(CRASH)
    plan.rejected("first refusal")
    plan.rejected("bad_resume: module level")
    action = plan.next_action()
    assert isinstance(action, Reraise)
    assert "bad_resume: module level" in action.reason
    assert "heal point 3" in action.reason and "ZeroDivisionError" in action.reason


def test_next_action_does_not_advance_by_itself() -> None:
    # Asking again without a rejection must not skip a heal (a retried request after a timeout).
    plan = SimpleStrategy().plan(CRASH)
    assert plan.next_action() == plan.next_action() == Heal("pass", Resume.SKIP)


def test_a_rejected_reraise_is_a_caller_bug() -> None:
    plan = SimpleStrategy().plan(CRASH)
    plan.rejected("a")
    plan.rejected("b")
    with pytest.raises(RuntimeError):
        plan.rejected("c")


def test_the_resumes_have_the_proto_and_mcp_spellings() -> None:
    assert [(r.value, r.grpc_name) for r in Resume] == [
        ("skip", "RESUME_SKIP"), ("retry", "RESUME_RETRY"), ("return", "RESUME_RETURN")]


# -- the runner's loop, on the transport-free fake -------------------------------------------------

def run(fake: FakeHealBench, **options: object) -> tuple[object, list[object], list[str], FakeGateway]:
    reports: list[object] = []
    errors: list[str] = []
    gateway = FakeGateway(fake)
    clock = [0.0]

    async def sleep(seconds: float) -> None:
        clock[0] += seconds

    runner = Runner(gateway, SimpleStrategy(), RunOptions(**{"run": "runs/r1", **options}),  # type: ignore[arg-type]
                    on_attempt=reports.append, on_error=errors.append, clock=lambda: clock[0], sleep=sleep)
    summary = asyncio.run(runner.run())
    return summary, reports, errors, gateway


def test_the_runner_plays_the_choices_in_order_on_each_heal_point() -> None:
    fake = FakeHealBench(three_attempts())
    summary, reports, errors, gateway = run(fake)
    assert fake.heals() == [
        ("heal", "runs/r1/attempts/a1", "pass", "skip"),
        ("heal", "runs/r1/attempts/a2", "pass", "skip"),
        ("heal", "runs/r1/attempts/a2", "_return_ = None", "return"),
        ("heal", "runs/r1/attempts/a3", "pass", "skip"),
        ("heal", "runs/r1/attempts/a3", "_return_ = None", "return"),
        ("reraise", "runs/r1/attempts/a3",
         "simple strategy: all 2 heals rejected at heal point 1 (KeyError); last: "
         "resume=return refused at heal point 1"),
        ("heal", "runs/r1/attempts/a3", "pass", "skip"),
    ]
    assert summary.as_json_dict() == {"attempts": 3, "heals_applied": 3, "proceeded": 2, "errors": 0}
    assert [(r.attempt, r.heal_points, r.heals_applied, r.proceeded) for r in reports] == [
        ("runs/r1/attempts/a1", 1, 1, True), ("runs/r1/attempts/a2", 1, 1, True),
        ("runs/r1/attempts/a3", 2, 1, False)]
    assert errors == [] and summary.fatal == []
    # One usage report per attempt, all zeros, the strategy named as the model.
    assert [(name, u["llm_calls"], u["model"]) for name, u in fake.usage] == [
        (f"runs/r1/attempts/a{i}", 0, "simple-strategy") for i in (1, 2, 3)]
    # One stream per claim, every one closed (the last one found nothing to claim).
    assert gateway.begun == gateway.ended == 4


def test_max_attempts_stops_after_that_many_claims() -> None:
    fake = FakeHealBench(three_attempts())
    summary, reports, _, _ = run(fake, max_attempts=2)
    assert summary.attempts == 2 and len(reports) == 2
    assert [entry for entry in fake.log if entry[0] == "claim"] == [("claim", "runs/r1")] * 2


def test_nothing_to_claim_is_polled_for_wait_seconds_then_ends_quietly() -> None:
    fake = FakeHealBench([FakeAttempt("runs/r1/attempts/a1", "i", [{"skip"}])], nothing_until=3)
    summary, _, errors, _ = run(fake, wait_seconds=5.0)
    assert summary.attempts == 1 and errors == [] and summary.fatal == []
    # 3 empty answers, the claim, then empty answers for 5 s at one per second (6 claims at t=0..5).
    assert fake.claims_seen == 3 + 1 + 6


def test_without_wait_seconds_the_first_nothing_to_claim_ends_the_run() -> None:
    fake = FakeHealBench(three_attempts(), nothing_until=1)
    summary, _, _, _ = run(fake)
    assert summary.attempts == 0 and fake.claims_seen == 1 and summary.fatal == []


def test_a_claim_refused_for_another_reason_is_fatal() -> None:
    fake = FakeHealBench(three_attempts())
    summary, _, errors, _ = run(fake, run="runs/nope")
    assert summary.fatal == [reasons.ATTEMPT_NOT_FOUND] and summary.errors == 1
    assert errors and "ATTEMPT_NOT_FOUND" in errors[0]


def test_a_named_attempt_is_claimed_first_then_the_run() -> None:
    fake = FakeHealBench(three_attempts())
    summary, reports, _, _ = run(fake, attempt="runs/r1/attempts/a3")
    assert [r.attempt for r in reports] == ["runs/r1/attempts/a3", "runs/r1/attempts/a1", "runs/r1/attempts/a2"]
    assert summary.attempts == 3


def test_a_named_attempt_alone_is_the_only_claim() -> None:
    fake = FakeHealBench(three_attempts())
    summary, reports, _, _ = run(fake, run=None, attempt="runs/r1/attempts/a2")
    assert [r.attempt for r in reports] == ["runs/r1/attempts/a2"] and summary.attempts == 1


def test_a_fatal_end_mid_attempt_is_counted_and_the_next_attempt_runs() -> None:
    attempts = three_attempts()
    attempts[0].fatal_after = (1, reasons.CLAIM_LAPSED)    # report_usage passes, the heal finds it lapsed
    fake = FakeHealBench(attempts)
    summary, reports, _, _ = run(fake)
    assert summary.fatal == [reasons.CLAIM_LAPSED] and summary.attempts == 3
    assert reports[0].errors == [reasons.CLAIM_LAPSED] and not reports[0].finished


def test_a_token_failure_stops_the_run_at_once() -> None:
    attempts = three_attempts()
    attempts[0].fatal_after = (0, reasons.TOKEN_INVALID)
    fake = FakeHealBench(attempts)
    summary, _, _, _ = run(fake)
    assert summary.fatal == [reasons.TOKEN_INVALID] and summary.attempts == 1


def test_a_heal_failing_for_another_reason_than_rejection_is_reraised() -> None:
    class Refusing(FakeHealBench):
        def heal(self, state, code, resume):  # type: ignore[no-untyped-def]
            self.log.append(("heal", state.spec.name, code, resume))
            return self.error(reasons.ARGUMENT_INVALID, "resume missing")

    fake = Refusing([FakeAttempt("runs/r1/attempts/a1", "i", [{"skip"}])])
    summary, reports, _, _ = run(fake)
    assert [e[0] for e in fake.heals()] == ["heal", "reraise"]
    assert "ARGUMENT_INVALID" in fake.heals()[1][2]
    assert summary.errors == 1 and summary.fatal == [] and reports[0].finished


def test_repeated_fatal_claims_give_up() -> None:
    class Down(FakeHealBench):
        def claim(self, run, attempt, agent=""):  # type: ignore[no-untyped-def]
            self.claims_seen += 1
            return self.error(reasons.SANDBOX_UNAVAILABLE, fatal=True)

    fake = Down(three_attempts())
    summary, _, _, _ = run(fake)
    assert fake.claims_seen == MAX_FAILED_CLAIMS and summary.fatal == [reasons.SANDBOX_UNAVAILABLE] * MAX_FAILED_CLAIMS
