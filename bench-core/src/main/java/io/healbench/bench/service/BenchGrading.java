package io.healbench.bench.service;

import io.healbench.bench.repository.BenchAttempt;
import io.healbench.bench.repository.BenchRun;
import io.healbench.bench.repository.BenchUsage;
import io.healbench.common.usage.AgentUsage;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * Grading: an attempt's completion event becomes its outcome, and the outcome is counted into its run. Live ingestion
 * and re-grading both go through here, so a re-graded run is graded exactly as it was live.
 */
final class BenchGrading {

    /** Heal-point exits that mean a budget ran out before the agent healed. */
    private static final Set<String> BUDGET_EXITS = Set.of("limits_exceeded", "time_exceeded");

    /** Heal-point exits that mean the agent itself failed (malformed replies, failed model calls). */
    private static final Set<String> AGENT_ERROR_EXITS = Set.of("format_errors", "error");

    private BenchGrading() {
    }

    /**
     * Classifies an ended attempt. The failure class the worker reported decides first (the harness's failures must
     * never be read as the agent's); then a heal that let the program run on; then why no heal did.
     */
    static BenchAttempt.OutcomeClass classify(BenchIncomingEvent.Outcome outcome) {
        switch (outcome.failureClass()) {
            case INFRASTRUCTURE:
                return BenchAttempt.OutcomeClass.INFRASTRUCTURE;
            case GRADER:
                return BenchAttempt.OutcomeClass.GRADER;
            case AGENT:
                return BenchAttempt.OutcomeClass.AGENT_ERROR;
            case NONE:
                break;
        }
        if (outcome.healsApplied() > 0 && outcome.proceeded()) {
            return BenchAttempt.OutcomeClass.HEALED;
        }
        List<String> exits = outcome.usage().healPointExits();
        if (exits.stream().anyMatch(BUDGET_EXITS::contains)) {
            return BenchAttempt.OutcomeClass.BUDGET;
        }
        if (exits.stream().anyMatch(AGENT_ERROR_EXITS::contains)) {
            return BenchAttempt.OutcomeClass.AGENT_ERROR;
        }
        return outcome.healsApplied() == 0 ? BenchAttempt.OutcomeClass.RERAISED : BenchAttempt.OutcomeClass.NOT_HEALED;
    }

    /** Sets the attempt's outcome from its completion event. */
    static void grade(BenchAttempt attempt, BenchIncomingEvent.Outcome outcome, Instant endTime) {
        BenchAttempt.OutcomeClass outcomeClass = classify(outcome);
        attempt.state = outcomeClass.chargedToAgent() ? BenchAttempt.State.COMPLETED : BenchAttempt.State.FAILED;
        attempt.outcomeClass = outcomeClass;
        attempt.proceeded = outcome.proceeded();
        attempt.passed = outcome.passed();
        attempt.healPoints = outcome.healPoints();
        attempt.healsApplied = outcome.healsApplied();
        attempt.healsRejected = outcome.healsRejected();
        attempt.exceptionType = outcome.exceptionType();
        attempt.exitCause = outcome.exitCause();
        attempt.failureClass = outcome.failureClass();
        attempt.detail = outcome.detail();
        attempt.wallTimeMs = outcome.wallTimeMs();
        attempt.traceSimilarity = outcome.traceSimilarity();
        attempt.usage = usage(outcome.usage());
        attempt.healPointExits = String.join(",", outcome.usage().healPointExits());
        attempt.endTime = endTime;
    }

    /** Counts an ended attempt into its run, and ends the run once every attempt has. */
    static void count(BenchRun run, BenchAttempt ended) {
        run.attemptsDone++;
        run.usage.add(ended.usage);
        if (ended.state == BenchAttempt.State.FAILED) {
            run.attemptsFailed++;
        } else {
            run.proceeded += ended.proceeded ? 1 : 0;
            run.passed += ended.passed ? 1 : 0;
            run.traceSimilaritySum += ended.traceSimilarity;
        }
        if (run.state == BenchRun.State.CANCELLED) {
            return;  // a cancelled run stays so; its running attempts still count as they end
        }
        if (run.attemptsDone < run.attemptsTotal) {
            run.state = BenchRun.State.RUNNING;
        } else {
            // A run none of whose attempts the harness could carry to a gradeable end says nothing about the agent.
            run.state = run.attemptsFailed == run.attemptsTotal ? BenchRun.State.FAILED : BenchRun.State.SUCCEEDED;
        }
    }

    /** The run's counters as they were before any attempt ended, for re-grading. */
    static void resetCounts(BenchRun run) {
        run.attemptsDone = 0;
        run.attemptsFailed = 0;
        run.proceeded = 0;
        run.passed = 0;
        run.traceSimilaritySum = 0;
        run.usage = new BenchUsage();
    }

    private static BenchUsage usage(AgentUsage reported) {
        BenchUsage usage = new BenchUsage();
        usage.llmCalls = reported.llmCalls();
        usage.inputTokens = reported.inputTokens();
        usage.cachedInputTokens = reported.cachedInputTokens();
        usage.outputTokens = reported.outputTokens();
        usage.costUsd = reported.costUsd();
        usage.priced = reported.priced();
        usage.probes = reported.probes();
        usage.explores = reported.explores();
        usage.heals = reported.heals();
        usage.reraises = reported.reraises();
        usage.formatErrors = reported.formatErrors();
        usage.selfReported = reported.selfReported();
        return usage;
    }
}
