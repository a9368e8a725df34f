package io.healbench.agent.service;

import io.healbench.common.guard.GuardMode;
import java.util.Objects;

/**
 * One attempt to run: which instance, for which tenant and run, with which agent; {@code llm} is the LLM agent's
 * backbone, limits and cassette ({@link LlmSettings#NONE} for offline agents); {@code instanceDigest} the instance's
 * digest in the run's manifest, which the sandbox checks (empty: unchecked).
 */
public record AttemptSpec(
        String tenant, String runId, String attemptId, String instanceId, int repeat, String agent, GuardMode guardMode,
        LlmSettings llm, String instanceDigest) {

    public AttemptSpec {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(runId, "runId");
        requireText(attemptId, "attemptId");
        requireText(instanceId, "instanceId");
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(guardMode, "guardMode");
        Objects.requireNonNull(llm, "llm");
        instanceDigest = instanceDigest == null ? "" : instanceDigest;
    }

    private static void requireText(String value, String field) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(field + " is required");
        }
    }
}
