package io.healbench.analysis;

import java.util.List;

/**
 * What one instance's agent attempts add up to. The statistics resample and average per instance, because an instance's
 * repeats share a program and a crash and so are not independent observations.
 *
 * @param attempts        the instance's agent attempts
 * @param proceeded       how many of them proceeded
 * @param passed          how many of them passed
 * @param similaritySum   the sum of their trace similarities
 */
record InstanceTally(int attempts, int proceeded, int passed, double similaritySum) {

    static InstanceTally of(List<AttemptRecord> agentAttempts) {
        int proceeded = 0;
        int passed = 0;
        double similaritySum = 0;
        for (AttemptRecord attempt : agentAttempts) {
            if (attempt.proceeded()) {
                proceeded++;
            }
            if (attempt.passed()) {
                passed++;
            }
            similaritySum += attempt.traceSimilarity();
        }
        return new InstanceTally(agentAttempts.size(), proceeded, passed, similaritySum);
    }

    /** Whether the instance passed in more than half its attempts: its verdict when runs are compared per instance. */
    boolean majorityPassed() {
        return 2 * passed > attempts;
    }

    /** Whether its attempts disagree on passing, which needs at least two of them. */
    boolean flaky() {
        return passed > 0 && passed < attempts;
    }
}
