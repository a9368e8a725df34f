package io.healbench.agent.service.external;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;

/** The external-agent gateway's settings (docs/agents.md, "The external API"). */
@ConfigMapping(prefix = "healbench.agent.gateway")
public interface ExternalSettings {

    /** How long a claim lives without a request or an open stream; the gateway renews it at a third of this. */
    @WithDefault("30s")
    Duration lease();

    /**
     * Lapses after which an attempt is no longer returned to the queue: its next lapse fails it as the agent's, even
     * before a heal or reraise, so that no agent can look at a crash again and again.
     */
    @WithDefault("2")
    int maxRequeues();

    /**
     * Standalone mode's token: callers present it as {@code Bearer <token>} and are tenant {@code local}. Unset, the
     * gateway takes Keycloak tokens with the {@code agent} role (distributed mode).
     */
    Optional<String> localToken();
}
