package io.healbench.agent.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.common.outcome.ExitCause;
import io.healbench.common.outcome.FailureClass;
import java.util.List;
import org.junit.jupiter.api.Test;

class AttemptTallyTest {

    private static final AgentSessionOutcome PASSED = new AgentSessionOutcome(true, true, ExitCause.EXITED, 0, 900, "", 0.75, true);
    private static final CrashObservation KEY_ERROR = new CrashObservation(1, "KeyError", "'k'",
            new ObservedStatement("v = d[k]", "assign", List.of("v"), 3), List.of(), true);
    private static final CrashObservation TYPE_ERROR = new CrashObservation(2, "TypeError", "bad",
            new ObservedStatement("x = f()", "assign", List.of("x"), 9), List.of(), true);

    @Test
    void countsHealPointsAndKeepsTheFirstExceptionType() {
        AttemptTally tally = new AttemptTally();
        tally.sessionStarted("sessions/s1");
        tally.crashed(KEY_ERROR);
        tally.healRejected();
        tally.healApplied();
        tally.crashed(TYPE_ERROR);
        tally.healApplied();

        AttemptResult result = tally.finished(PASSED);

        assertEquals("sessions/s1", result.session());
        assertEquals(2, result.healPoints());
        assertEquals(2, result.healsApplied());
        assertEquals(1, result.healsRejected());
        assertEquals("KeyError", result.exceptionType());
        assertEquals(FailureClass.NONE, result.failureClass());
        assertTrue(result.proceeded() && result.passed());
        assertFalse(result.retryable());
        assertEquals(0.75, result.traceSimilarity(), "the sandbox's trace similarity is carried to the result");
    }

    @Test
    void aSandboxErrorOutcomeIsAnInfrastructureFailure() {
        AttemptTally tally = new AttemptTally();
        AttemptResult result = tally.finished(new AgentSessionOutcome(false, false, ExitCause.ERROR, -1, 10, "bwrap: no such file", 0.0, false));
        assertEquals(FailureClass.INFRASTRUCTURE, result.failureClass());
        assertTrue(result.detail().contains("bwrap"), result.detail());
        assertFalse(result.retryable());
    }

    @Test
    void aProgramThatFailsItsTestIsNotAFailureOfAnyone() {
        AttemptTally tally = new AttemptTally();
        tally.crashed(KEY_ERROR);
        tally.healApplied();
        AttemptResult result = tally.finished(new AgentSessionOutcome(true, false, ExitCause.EXITED, 1, 10, "AssertionError", 0.5, true));
        assertEquals(FailureClass.NONE, result.failureClass());
        assertFalse(result.passed());
    }

    @Test
    void infrastructureOutranksAgent() {
        AttemptTally tally = new AttemptTally();
        tally.crashed(KEY_ERROR);
        tally.agentFailed("no decision");
        assertEquals(FailureClass.AGENT, tally.finished(PASSED).failureClass());
        tally.infrastructureFailed("UNAVAILABLE", true);
        AttemptResult result = tally.unfinished(ExitCause.ERROR, 5, "");
        assertEquals(FailureClass.INFRASTRUCTURE, result.failureClass());
        assertEquals("UNAVAILABLE", result.detail());
        assertTrue(result.retryable());
    }

    @Test
    void theFirstInfrastructureCauseIsKept() {
        AttemptTally tally = new AttemptTally();
        tally.infrastructureFailed("first", false);
        tally.infrastructureFailed("second", true);
        AttemptResult result = tally.unfinished(ExitCause.ERROR, 5, "");
        assertEquals("first", result.detail());
        assertFalse(result.retryable());
    }

    @Test
    void aTimeoutWithoutAnyAppliedHealIsInfrastructure() {
        AttemptTally tally = new AttemptTally();
        tally.crashed(KEY_ERROR);
        tally.healRejected();
        AttemptResult result = tally.timedOut(600_000);
        assertEquals(FailureClass.INFRASTRUCTURE, result.failureClass());
        assertEquals(ExitCause.TIMEOUT, result.exitCause());
        assertFalse(result.retryable(), "a hang would likely hang again");
    }

    @Test
    void aTimeoutAfterAnAppliedHealIsTheHealsOutcome() {
        AttemptTally tally = new AttemptTally();
        tally.crashed(KEY_ERROR);
        tally.healApplied();
        AttemptResult result = tally.timedOut(600_000);
        assertEquals(FailureClass.NONE, result.failureClass());
        assertFalse(result.proceeded());
        assertEquals(ExitCause.TIMEOUT, result.exitCause());
    }

    @Test
    void aTimeoutWhileTheAgentFailedIsTheAgents() {
        AttemptTally tally = new AttemptTally();
        tally.crashed(KEY_ERROR);
        tally.agentFailed("decided after the budget");
        assertEquals(FailureClass.AGENT, tally.timedOut(600_000).failureClass());
    }

    @Test
    void aProgramThatNeverReportedBeforeAnyHealIsInfrastructure() {
        AttemptTally tally = new AttemptTally();
        AttemptResult result = tally.finished(new AgentSessionOutcome(false, false, ExitCause.EXITED, 1, 40,
                "exited with status 1 without reporting an outcome; last output: ModuleNotFoundError: No module named 'pytest'",
                0.0, false));
        assertEquals(FailureClass.INFRASTRUCTURE, result.failureClass());
        assertTrue(result.detail().contains("No module named 'pytest'"), result.detail());
    }

    @Test
    void aProgramThatDiesWithoutAnOutcomeAfterAHealIsTheHealsOutcome() {
        AttemptTally tally = new AttemptTally();
        tally.crashed(KEY_ERROR);
        tally.healApplied();
        AttemptResult result = tally.finished(new AgentSessionOutcome(false, false, ExitCause.SIGNAL, 139, 40,
                "SIGSEGV (signal 11): terminated without reporting an outcome", 0.0, false));
        assertEquals(FailureClass.NONE, result.failureClass());
        assertFalse(result.proceeded());
    }

    @Test
    void aRuntimeHarnessErrorIsInfrastructure() {
        AttemptTally tally = new AttemptTally();
        tally.crashed(KEY_ERROR);
        AttemptResult result = tally.finished(new AgentSessionOutcome(false, false, ExitCause.ERROR, 4, 40,
                "the test runner raised UsageError: bad args", 0.0, true));
        assertEquals(FailureClass.INFRASTRUCTURE, result.failureClass());
    }

    @Test
    void aProgramThatNeverCrashedDidNotReproduceTheInstance() {
        AttemptResult result = new AttemptTally().finished(PASSED);
        assertEquals(FailureClass.INFRASTRUCTURE, result.failureClass());
        assertTrue(result.detail().contains("did not reproduce"), result.detail());
    }
}
