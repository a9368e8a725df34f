package io.healbench.bench.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/** bench-service settings; all defaulted so the standalone CLI can embed the service without them. */
@ConfigMapping(prefix = "healbench.bench")
public interface BenchConfig {

    Auth auth();

    /** The dataset whose instances runs are made of. */
    @WithDefault("${healbench.home:.}/dataset")
    Path datasetDir();

    /**
     * How often WatchRun re-reads a run even without an in-JVM change notice: picks up changes that
     * another bench-service replica ingested.
     */
    @WithDefault("2s")
    Duration watchPollInterval();

    /**
     * The LLM agents' backbones file (docs/agents.md, "Backbones"), the same the agent workers read: a run naming a
     * backbone is checked against it before it starts. Unset or missing, only ad-hoc backbones can be named.
     */
    Optional<Path> backbonesFile();

    interface Auth {
        /**
         * When false (the standalone CLI, which has no Keycloak) every caller is tenant
         * {@code local} with every role.
         */
        @WithDefault("true")
        boolean enabled();
    }
}
