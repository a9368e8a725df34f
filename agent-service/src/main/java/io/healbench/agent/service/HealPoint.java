package io.healbench.agent.service;

import java.util.List;

/**
 * One request for a decision: the crash, plus the heals already refused at this heal point
 * (empty on the first ask). {@code attemptId} lets stateful agents keep a history per attempt.
 */
public record HealPoint(String attemptId, CrashObservation crash, List<RejectedHeal> rejected) {

    public HealPoint {
        rejected = List.copyOf(rejected);
    }
}
