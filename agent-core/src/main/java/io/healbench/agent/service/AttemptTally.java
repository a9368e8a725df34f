package io.healbench.agent.service;

import io.healbench.common.outcome.ExitCause;
import io.healbench.common.outcome.FailureClass;

/**
 * What happened during one attempt, accumulated as the runner goes, and the classification of its
 * end: an infrastructure cause outranks an agent cause, which outranks none.
 */
final class AttemptTally {

    private String session = "";
    private int healPoints;
    private int healsApplied;
    private int healsRejected;
    private String firstExceptionType = "";
    private String infrastructureCause;
    private boolean retryable;
    private String agentCause;
    private AgentRecord agentRecord = AgentRecord.NONE;

    void sessionStarted(String name) {
        session = name;
    }

    void crashed(CrashObservation crash) {
        healPoints++;
        if (firstExceptionType.isEmpty()) {
            firstExceptionType = crash.exceptionType();
        }
    }

    void healApplied() {
        healsApplied++;
    }

    void healRejected() {
        healsRejected++;
    }

    int healsApplied() {
        return healsApplied;
    }

    /** The agent's usage and trajectory; a replay that diverged means the run is not the recorded one. */
    void agentRecorded(AgentRecord record) {
        agentRecord = record;
        if (!record.divergence().isEmpty()) {
            infrastructureFailed("replay_divergence: " + record.divergence(), false);
        }
    }

    void infrastructureFailed(String cause, boolean mayRecover) {
        if (infrastructureCause == null) {
            infrastructureCause = cause;
            retryable = mayRecover;
        }
    }

    void agentFailed(String cause) {
        if (agentCause == null) {
            agentCause = cause;
        }
    }

    /**
     * The program ran to its end and the sandbox reported how. Nothing the agent did can explain a program that never
     * reported an outcome before any heal was applied (a missing package, a failed fetch, a harness crash), nor one
     * that never reached its crash: both are the platform's, never the agent's.
     */
    AttemptResult finished(AgentSessionOutcome outcome) {
        if (outcome.isInfrastructureError()) {
            infrastructureFailed("the sandbox failed to run the program: " + outcome.detail(), false);
        } else if (!outcome.reported() && healsApplied == 0) {
            infrastructureFailed("the program never reported an outcome: " + outcome.detail(), false);
        } else if (healPoints == 0) {
            infrastructureFailed("the program ended without reaching its crash: the instance did not reproduce here ("
                    + outcome.exitCause().wireName() + (outcome.detail().isEmpty() ? "" : ": " + outcome.detail()) + ")", false);
        }
        return result(outcome.proceeded(), outcome.passed(), outcome.exitCause(), outcome.wallTimeMs(), outcome.detail(),
                outcome.traceSimilarity());
    }

    /**
     * The budget ran out before FINISHED. If the agent changed nothing, the hang is not its doing:
     * the sandbox or the program itself did not come to an end, so it is an infrastructure failure.
     * After an applied heal, a program that does not end is an outcome of the heal (not proceeded).
     */
    AttemptResult timedOut(long wallTimeMs) {
        if (healsApplied == 0 && agentCause == null) {
            infrastructureFailed("no FINISHED within the attempt's budget and no heal was applied", false);
        }
        return unfinished(ExitCause.TIMEOUT, wallTimeMs, "the attempt's budget ran out");
    }

    /** The attempt ended without an outcome (budget exhausted or sandbox failure). */
    AttemptResult unfinished(ExitCause exitCause, long wallTimeMs, String detail) {
        return result(false, false, exitCause, wallTimeMs, detail, 0.0);
    }

    private AttemptResult result(boolean proceeded, boolean passed, ExitCause exitCause, long wallTimeMs, String detail,
                                 double traceSimilarity) {
        FailureClass failureClass;
        String why;
        if (infrastructureCause != null) {
            failureClass = FailureClass.INFRASTRUCTURE;
            why = infrastructureCause;
        } else if (agentCause != null) {
            failureClass = FailureClass.AGENT;
            why = agentCause;
        } else {
            failureClass = FailureClass.NONE;
            why = detail;
        }
        return new AttemptResult(session, proceeded, passed, healPoints, healsApplied, healsRejected,
                firstExceptionType, exitCause, wallTimeMs, failureClass, why == null ? "" : why,
                failureClass == FailureClass.INFRASTRUCTURE && retryable, traceSimilarity, agentRecord.usage(),
                agentRecord.trajectoryJson());
    }
}
