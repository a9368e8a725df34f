package io.healbench.agent.service;

import java.util.List;
import java.util.Objects;

/**
 * One request for a decision: the crash, plus the heals already refused at this heal point (empty on the first
 * ask), and the session's probes and read-only views. {@code attemptId} lets stateful agents keep a history per
 * attempt.
 */
public record HealPoint(String attemptId, CrashObservation crash, List<RejectedHeal> rejected, SessionTools tools) {

    public HealPoint {
        rejected = List.copyOf(rejected);
        Objects.requireNonNull(tools, "tools");
    }

    /** A heal point whose agent decides from the crash alone. */
    public HealPoint(String attemptId, CrashObservation crash, List<RejectedHeal> rejected) {
        this(attemptId, crash, rejected, SessionTools.NONE);
    }
}
