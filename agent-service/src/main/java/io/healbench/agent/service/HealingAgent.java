package io.healbench.agent.service;

/**
 * A healing agent: given a crash paused in the sandbox, decides how to heal it. Implementations are
 * selected by {@link #name()} (the {@code agent} field of an attempt request).
 */
public interface HealingAgent {

    /** The name attempts use to select this agent, e.g. {@code rules}. */
    String name();

    /** Decides what to do at a heal point. May throw; the caller treats that as an agent failure. */
    AgentDecision decide(HealPoint point);

    /**
     * The attempt is over (whatever its outcome): an agent that keeps a history per attempt (keyed by
     * {@link HealPoint#attemptId()}) drops it here. Called once per run of an attempt; must not throw.
     */
    default void attemptEnded(String attemptId) {
    }
}
