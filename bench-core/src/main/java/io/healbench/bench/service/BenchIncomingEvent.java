package io.healbench.bench.service;

import com.fasterxml.jackson.databind.node.TextNode;
import io.healbench.common.guard.GuardDecision;
import io.healbench.common.outcome.ExitCause;
import io.healbench.common.outcome.FailureClass;
import io.healbench.common.usage.AgentUsage;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * An attempt event as the ingestor needs it, whatever transport brought it. {@code payloadJson} is
 * the whole event, kept for re-grading; {@code outcome} is set for COMPLETED, {@code guardDecision}
 * for GUARD_DECISION.
 */
public record BenchIncomingEvent(
        String eventId,
        String tenant,
        String runId,
        String attemptId,
        Instant time,
        Kind kind,
        String payloadJson,
        Outcome outcome,
        GuardDecision guardDecision) {

    public enum Kind {
        STARTED("started"), HEAL_APPLIED("heal_applied"), GUARD_DECISION("guard_decision"), COMPLETED("completed"),
        UNKNOWN("unknown");

        private final String wireName;

        Kind(String wireName) {
            this.wireName = wireName;
        }

        /** The name used in routing keys and stored records. */
        public String wireName() {
            return wireName;
        }
    }

    /**
     * How the attempt ended. {@code traceSimilarity}
     * is the healed run's trace similarity with the REFERENCE run (docs/trace-similarity.md); {@code usage} and
     * {@code trajectoryJson} are the agent's (empty for agents that keep no trajectory).
     */
    public record Outcome(boolean proceeded, boolean passed, int healPoints, int healsApplied, int healsRejected,
            String exceptionType, ExitCause exitCause, long wallTimeMs, FailureClass failureClass, String detail,
            double traceSimilarity, AgentUsage usage, String trajectoryJson) {
    }

    /** bench-service's own events say so in their payload's {@value #OWN_SOURCE_FIELD} field. */
    public static final String OWN_SOURCE_FIELD = "source";
    public static final String OWN_SOURCE = "bench-service";

    /**
     * bench-service's own end of an attempt that never ran to its end (it could not be queued; its claims kept lapsing):
     * an infrastructure failure. Its id is the worker's completion event's, so whichever arrives first is counted.
     */
    public static BenchIncomingEvent infrastructureFailure(String tenant, String runId, String attemptId, String detail) {
        return infrastructureFailure(tenant, runId, attemptId, detail, Instant.now().truncatedTo(ChronoUnit.MICROS));
    }

    /** The same event at a given time: as it was stored, for re-grading. */
    public static BenchIncomingEvent infrastructureFailure(String tenant, String runId, String attemptId, String detail,
            Instant time) {
        return new BenchIncomingEvent(attemptId + "/completed", tenant, runId, attemptId, time, Kind.COMPLETED,
                "{\"" + OWN_SOURCE_FIELD + "\":\"" + OWN_SOURCE + "\",\"detail\":" + TextNode.valueOf(detail) + "}",
                new Outcome(false, false, 0, 0, 0, "", ExitCause.NOT_STARTED, 0, FailureClass.INFRASTRUCTURE, detail, 0.0,
                        AgentUsage.NONE, ""),
                null);
    }
}
