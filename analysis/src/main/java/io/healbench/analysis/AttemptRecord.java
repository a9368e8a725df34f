package io.healbench.analysis;

import java.util.List;

/**
 * One ended (or stranded) attempt, as the statistics and the reports see it: no transport types.
 *
 * @param attemptId  the attempt's id (the last segment of runs/{run}/attempts/{attempt})
 * @param repeat     0-based repeat index
 * @param codebase   the instance's code base (its subject's codebase)
 * @param tier       the instance's tier label (real_bug, injected, ...)
 * @param errorType  the crash's exception type (TypeError, ...); empty when unknown
 * @param directory  the attempt's directory relative to the run's directory (holds report.json, trajectory.json, ...)
 */
public record AttemptRecord(String attemptId, String instanceId, int repeat, String codebase, String tier, String errorType,
        OutcomeClass outcome, boolean proceeded, boolean passed, double traceSimilarity, double costUsd, long inputTokens,
        long outputTokens, List<GuardDecisionRecord> guardDecisions, String detail, String directory) {

    public record GuardDecisionRecord(int healPoint, String stage, String verdict, String reason) {}
}
