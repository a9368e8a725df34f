package io.healbench.agent.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/** Limits of agent-service's attempts; every value has a default so the standalone app needs none. */
@ConfigMapping(prefix = "healbench.agent")
public interface AgentSettings {

    /** Heals submitted at one heal point before the runner reraises (the first try included). */
    @WithDefault("2")
    int maxHealTries();

    /** Wall-clock cap of one attempt, from session creation to FINISHED. */
    @WithDefault("600s")
    Duration attemptTimeout();

    /**
     * Attempts one worker runs at a time, each in its own sandbox session. The broker prefetch of the
     * {@code attempts} channel is set from it in application.properties.
     */
    @WithDefault("2")
    int maxConcurrentAttempts();

    /**
     * How long a worker waits before it gives an attempt back to the queue after a transient infrastructure failure
     * (a sandbox restarting), and how often it does so before recording the failure.
     */
    @WithDefault("10s")
    java.time.Duration requeueDelay();

    @WithDefault("3")
    int maxRequeues();

    /**
     * The agent pool this worker serves: application.properties names its work queue {@code attempts.<pool>} after it,
     * where bench-service routes the attempts of the runs that name the pool.
     */
    @WithDefault("default")
    String pool();

    /** Cap of one unary sandbox call (create, heal, reraise, close). */
    @WithDefault("120s")
    Duration sandboxCallTimeout();

    /** The {@code replay} agent's heal sets, one {@code <instance-id>.json} each; unset, that agent cannot run. */
    Optional<Path> replayDir();

    /**
     * The backbones file of the LLM agents (docs/agents.md, "Backbones"); unset or missing, only ad-hoc backbones
     * ({@code <provider>:<model>@<base-url>}) can be named.
     */
    Optional<Path> backbonesFile();
}
