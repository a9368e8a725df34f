package io.healbench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.healbench.proto.bench.v1.Attempt;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunSummaryTest {

    private static Attempt attempt(String id, String failureClass, int applied, int rejected, boolean proceeded, String detail) {
        return Attempt.newBuilder().setInstanceId(id).setFailureClass(failureClass).setHealPoints(Math.max(1, applied + rejected))
                .setHealsApplied(applied).setHealsRejected(rejected).setProceeded(proceeded).setDetail(detail).build();
    }

    @Test
    void theFailureClassDecidesBeforeAnythingElse() {
        // An infrastructure failure is never the agent's, even if a heal was applied and the program proceeded.
        assertEquals(AttemptStatus.INFRASTRUCTURE, AttemptStatus.of(attempt("a", "infrastructure", 1, 0, true, "x")).label());
        assertEquals(AttemptStatus.INFRASTRUCTURE, AttemptStatus.of(attempt("a", "grader", 1, 0, true, "x")).label());
        assertEquals(AttemptStatus.AGENT_ERROR, AttemptStatus.of(attempt("a", "agent", 1, 0, true, "x")).label());
        assertEquals(AttemptStatus.HEALED, AttemptStatus.of(attempt("a", "none", 1, 0, true, "")).label());
        assertEquals(AttemptStatus.NOT_HEALED, AttemptStatus.of(attempt("a", "none", 1, 0, false, "TypeError")).label());
        AttemptStatus refused = AttemptStatus.of(attempt("a", "none", 0, 2, false, ""));
        assertEquals(AttemptStatus.RERAISED, refused.label());
        assertEquals("2 heals refused", refused.reason());
    }

    @Test
    void countsByStatusAndClassKeepTheFirstReasonAndLeaveTheHarnessOutOfTheRates() {
        RunSummary summary = RunSummary.of(List.of(
                attempt("i1", "infrastructure", 0, 0, false, "cannot create a session: bwrap missing"),
                attempt("i2", "none", 1, 0, true, ""),
                attempt("i3", "infrastructure", 0, 0, false, "the program never reported an outcome"),
                attempt("i4", "agent", 0, 0, false, "no decision"),
                attempt("i5", "none", 0, 0, false, "")));
        assertEquals(Map.of("healed", 1, "not healed", 0, "reraised", 1, "agent error", 1, "infrastructure", 2), summary.byStatus());
        assertEquals(Map.of("infrastructure", 2, "grader", 0, "agent", 1), summary.failures());
        assertEquals("i1: cannot create a session: bwrap missing", summary.firstReasons().get("infrastructure"));
        assertEquals(2, summary.infrastructureFailures());
        assertEquals(3, summary.agentAttempts());
    }
}
