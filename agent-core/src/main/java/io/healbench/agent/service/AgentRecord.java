package io.healbench.agent.service;

import io.healbench.common.usage.AgentUsage;
import java.util.Objects;

/**
 * What an agent hands back when its attempt ends: its usage, its trajectory (ATIF JSON, empty when it keeps none)
 * and, when a replayed cassette did not hold a request, where the replay diverged (empty otherwise).
 */
public record AgentRecord(AgentUsage usage, String trajectoryJson, String divergence) {

    public static final AgentRecord NONE = new AgentRecord(AgentUsage.NONE, "", "");

    public AgentRecord {
        Objects.requireNonNull(usage, "usage");
        Objects.requireNonNull(trajectoryJson, "trajectoryJson");
        Objects.requireNonNull(divergence, "divergence");
    }
}
