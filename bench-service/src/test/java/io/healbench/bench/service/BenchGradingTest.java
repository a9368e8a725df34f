package io.healbench.bench.service;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.healbench.bench.repository.BenchAttempt;
import io.healbench.bench.repository.BenchAttempt.OutcomeClass;
import io.healbench.bench.repository.BenchRun;
import io.healbench.common.outcome.ExitCause;
import io.healbench.common.outcome.FailureClass;
import io.healbench.common.usage.AgentUsage;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchGradingTest {

    private static BenchIncomingEvent.Outcome outcome(FailureClass failureClass, int applied, boolean proceeded, boolean passed,
            String... exits) {
        AgentUsage usage = new AgentUsage(0, 0, 0, 0, 0, true, 0, 0, 0, 0, 0, List.of(exits), false);
        return new BenchIncomingEvent.Outcome(proceeded, passed, 1, applied, 0, "TypeError", ExitCause.EXITED, 10, failureClass, "why", 0.5,
                usage, "");
    }

    @Test
    void theFailureClassDecidesBeforeAnythingElse() {
        // A harness failure is never the agent's, even when a heal was applied and the program proceeded.
        assertEquals(OutcomeClass.INFRASTRUCTURE, BenchGrading.classify(outcome(FailureClass.INFRASTRUCTURE, 1, true, true)));
        assertEquals(OutcomeClass.GRADER, BenchGrading.classify(outcome(FailureClass.GRADER, 1, true, true)));
        assertEquals(OutcomeClass.AGENT_ERROR, BenchGrading.classify(outcome(FailureClass.AGENT, 1, true, true)));
    }

    @Test
    void aHealThatLetTheProgramRunOnIsHealedWhateverTheExitsSay() {
        assertEquals(OutcomeClass.HEALED, BenchGrading.classify(outcome(FailureClass.NONE, 1, true, false, "healed", "limits_exceeded")));
        assertEquals(OutcomeClass.NOT_HEALED, BenchGrading.classify(outcome(FailureClass.NONE, 1, false, false, "healed")));
    }

    @Test
    void withoutAHealTheExitsSayWhy() {
        assertEquals(OutcomeClass.BUDGET, BenchGrading.classify(outcome(FailureClass.NONE, 0, false, false, "time_exceeded")));
        assertEquals(OutcomeClass.BUDGET, BenchGrading.classify(outcome(FailureClass.NONE, 0, false, false, "limits_exceeded")));
        assertEquals(OutcomeClass.AGENT_ERROR, BenchGrading.classify(outcome(FailureClass.NONE, 0, false, false, "format_errors")));
        assertEquals(OutcomeClass.RERAISED, BenchGrading.classify(outcome(FailureClass.NONE, 0, false, false, "reraised")));
    }

    @Test
    void aRunWhoseAttemptsAllFailedInTheHarnessFailsAndOneWithAnAgentAttemptSucceeds() {
        BenchRun failed = run(2);
        BenchGrading.count(failed, graded(outcome(FailureClass.INFRASTRUCTURE, 0, false, false)));
        assertEquals(BenchRun.State.RUNNING, failed.state);
        BenchGrading.count(failed, graded(outcome(FailureClass.GRADER, 0, false, false)));
        assertEquals(BenchRun.State.FAILED, failed.state);
        assertEquals(2, failed.attemptsFailed);

        BenchRun succeeded = run(2);
        BenchGrading.count(succeeded, graded(outcome(FailureClass.INFRASTRUCTURE, 0, false, false)));
        BenchGrading.count(succeeded, graded(outcome(FailureClass.NONE, 1, true, true, "healed")));
        assertEquals(BenchRun.State.SUCCEEDED, succeeded.state);
        assertEquals(1, succeeded.passed);
        assertEquals(0.5, succeeded.meanTraceSimilarity());
    }

    @Test
    void aCancelledRunStaysCancelledWhileItsRunningAttemptsEnd() {
        BenchRun run = run(3);
        run.state = BenchRun.State.CANCELLED;
        BenchGrading.count(run, graded(outcome(FailureClass.NONE, 1, true, true, "healed")));
        assertEquals(BenchRun.State.CANCELLED, run.state);
        assertEquals(1, run.attemptsDone);
    }

    private static BenchRun run(int attempts) {
        BenchRun run = new BenchRun();
        run.state = BenchRun.State.RUNNING;
        run.attemptsTotal = attempts;
        return run;
    }

    private static BenchAttempt graded(BenchIncomingEvent.Outcome outcome) {
        BenchAttempt attempt = new BenchAttempt();
        BenchGrading.grade(attempt, outcome, Instant.EPOCH);
        return attempt;
    }
}
