package io.healbench.agent.service;

import java.util.List;

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
     * An attempt with this agent is about to start (before its session exists). An agent that needs the attempt's
     * instance or settings reads them here; throwing fails the attempt as the agent's failure, with the message.
     */
    default void attemptStarted(AttemptSpec spec) {
    }

    /**
     * Who takes the attempt's calls from here on ({@link #decide}, {@link #healTries}, {@link #healApplied},
     * {@link #healPointEnded}, {@link #attemptEnded}), asked once after {@link #attemptStarted}; the runner drops it
     * when the attempt ends. An agent whose history belongs to one attempt returns a fresh object holding it, so that
     * it needs no map by attempt id. By default the agent itself. Must not throw.
     */
    default HealingAgent forAttempt(AttemptSpec spec) {
        return this;
    }

    /**
     * Heals one heal point may submit before the runner reraises (0: no limit of the runner's; the agent keeps its
     * own). By default the LLM agents' limit, or the worker's setting for offline agents.
     */
    default int healTries(AttemptSpec spec, int offlineDefault) {
        return spec.llm().healTries(offlineDefault);
    }

    /** The sandbox applied the agent's heal; {@code changed} are the locations HealGuard saw it change. Must not throw. */
    default void healApplied(String attemptId, List<String> changed) {
    }

    /**
     * The heal point is settled: {@code healed} when a heal was applied, false when the exception propagated (the
     * agent reraised, or the runner did after refused heals). Must not throw.
     */
    default void healPointEnded(String attemptId, int healPoint, boolean healed) {
    }

    /**
     * The attempt is over (whatever its outcome): an agent that keeps a history per attempt (keyed by
     * {@link HealPoint#attemptId()}) drops it here and hands back its usage and trajectory. Called once per run of
     * an attempt; must not throw.
     */
    default AgentRecord attemptEnded(String attemptId) {
        return AgentRecord.NONE;
    }
}
