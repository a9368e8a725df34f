package io.healbench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.healbench.proto.bench.v1.Attempt;
import io.healbench.proto.bench.v1.OutcomeClass;
import io.healbench.proto.outcome.v1.OutcomeSummary;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunSummaryTest {

    private static Attempt attempt(String id, OutcomeClass outcome, int rejected, String detail) {
        return Attempt.newBuilder().setInstanceId(id).setOutcomeClass(outcome)
                .setSummary(OutcomeSummary.newBuilder().setHealsRejected(rejected)).setDetail(detail).build();
    }

    @Test
    void anAttemptThatNeverEndedIsTheHarnessesNeverTheAgents() {
        Attempt cancelled = Attempt.newBuilder().setInstanceId("c").setState(Attempt.State.CANCELLED).build();
        assertEquals("infrastructure", AttemptStatus.of(cancelled).label());
        assertEquals("the run was cancelled", AttemptStatus.of(cancelled).reason());
        AttemptStatus refused = AttemptStatus.of(attempt("a", OutcomeClass.RERAISED, 2, ""));
        assertEquals("reraised", refused.label());
        assertEquals("2 heals refused", refused.reason());
    }

    @Test
    void countsByClassKeepTheFirstReasonAndLeaveTheHarnessOutOfTheRates() {
        RunSummary summary = RunSummary.of(List.of(
                attempt("i1", OutcomeClass.INFRASTRUCTURE, 0, "cannot create a session: bwrap missing"),
                attempt("i2", OutcomeClass.HEALED, 0, ""),
                attempt("i3", OutcomeClass.GRADER, 0, "the target test's report is unreadable"),
                attempt("i4", OutcomeClass.AGENT_ERROR, 0, "no decision"),
                attempt("i5", OutcomeClass.RERAISED, 0, ""),
                attempt("i6", OutcomeClass.BUDGET, 0, "limits_exceeded")));
        assertEquals(Map.of("healed", 1, "not healed", 0, "reraised", 1, "agent error", 1, "budget", 1, "infrastructure", 1,
                "grader", 1), summary.byClass());
        assertEquals("i1: cannot create a session: bwrap missing", summary.firstReasons().get("infrastructure"));
        assertEquals(2, summary.infrastructureFailures());
        assertEquals(4, summary.agentAttempts());
    }
}
