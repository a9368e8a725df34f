package io.healbench.agent.service;

import io.healbench.common.outcome.ExitCause;
import io.healbench.common.outcome.FailureClass;
import io.healbench.common.usage.AgentUsage;

/**
 * The end of one attempt, with what its agent used ({@code usage}) and its trajectory (empty for agents that keep
 * none). {@code retryable} marks an infrastructure failure that running the
 * attempt again later may cure (the sandbox was unavailable or overloaded).
 */
public record AttemptResult(
        String session,
        boolean proceeded,
        boolean passed,
        int healPoints,
        int healsApplied,
        int healsRejected,
        String exceptionType,
        ExitCause exitCause,
        long wallTimeMs,
        FailureClass failureClass,
        String detail,
        boolean retryable,
        double traceSimilarity,
        AgentUsage usage,
        String trajectoryJson) {

    /** The same end, charged to the agent (its claim lapsed, say), with {@code why} as the detail. */
    public AttemptResult asAgentFailure(String why) {
        return new AttemptResult(session, proceeded, passed, healPoints, healsApplied, healsRejected, exceptionType,
                exitCause, wallTimeMs, FailureClass.AGENT, why, false, traceSimilarity, usage, trajectoryJson);
    }

    public AttemptResult withDetail(String newDetail) {
        return new AttemptResult(session, proceeded, passed, healPoints, healsApplied, healsRejected, exceptionType,
                exitCause, wallTimeMs, failureClass, newDetail, retryable, traceSimilarity, usage, trajectoryJson);
    }
}
