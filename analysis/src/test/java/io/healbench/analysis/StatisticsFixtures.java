package io.healbench.analysis;

import java.util.ArrayList;
import java.util.List;

/** Small runs and attempts for the statistics tests, with defaults for everything a test does not look at. */
final class StatisticsFixtures {

    static final double COST_PER_ATTEMPT = 0.01;
    static final long INPUT_TOKENS_PER_ATTEMPT = 100;
    static final long OUTPUT_TOKENS_PER_ATTEMPT = 10;

    private StatisticsFixtures() {}

    /** An agent-charged attempt: healed and proceeded when it passed, not healed otherwise. */
    static AttemptRecord agentAttempt(String instanceId, int repeat, boolean passed, double traceSimilarity) {
        return attempt(instanceId, repeat, passed ? OutcomeClass.HEALED : OutcomeClass.NOT_HEALED, passed, passed,
                traceSimilarity);
    }

    static AttemptRecord attempt(String instanceId, int repeat, OutcomeClass outcome, boolean proceeded, boolean passed,
            double traceSimilarity) {
        return new AttemptRecord(instanceId + "-r" + repeat, instanceId, repeat, "codebase-a", "real_bug", "TypeError",
                outcome, proceeded, passed, traceSimilarity, COST_PER_ATTEMPT, INPUT_TOKENS_PER_ATTEMPT,
                OUTPUT_TOKENS_PER_ATTEMPT, List.of(), "", "attempts/" + instanceId + "-r" + repeat);
    }

    /** The attempt placed in another group of the breakdowns. */
    static AttemptRecord grouped(AttemptRecord a, String codebase, String tier, String errorType) {
        return new AttemptRecord(a.attemptId(), a.instanceId(), a.repeat(), codebase, tier, errorType, a.outcome(),
                a.proceeded(), a.passed(), a.traceSimilarity(), a.costUsd(), a.inputTokens(), a.outputTokens(),
                a.guardDecisions(), a.detail(), a.directory());
    }

    static AttemptRecord withGuardDecisions(AttemptRecord a, List<AttemptRecord.GuardDecisionRecord> decisions) {
        return new AttemptRecord(a.attemptId(), a.instanceId(), a.repeat(), a.codebase(), a.tier(), a.errorType(),
                a.outcome(), a.proceeded(), a.passed(), a.traceSimilarity(), a.costUsd(), a.inputTokens(),
                a.outputTokens(), decisions, a.detail(), a.directory());
    }

    static RunRecord run(String runId, int repeats, List<AttemptRecord> attempts) {
        return new RunRecord(runId, "label-" + runId, "toolloop", "off", repeats, "SUCCEEDED", "2025-01-01T00:00:00Z",
                attempts);
    }

    /**
     * A run of {@code instances} instances with two repeats each: even instances pass both, odd ones fail both, and trace
     * similarities vary with the instance so that TS is not a step function of CR.
     */
    static RunRecord splitRun(String runId, int instances) {
        List<AttemptRecord> attempts = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            String instanceId = String.format("inst-%03d", i);
            boolean passes = i % 2 == 0;
            double similarity = 0.3 + 0.6 * ((i * 7) % 11) / 10.0;
            attempts.add(agentAttempt(instanceId, 0, passes, similarity));
            attempts.add(agentAttempt(instanceId, 1, passes, similarity * 0.9));
        }
        return run(runId, 2, attempts);
    }
}
