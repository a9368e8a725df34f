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

    /** When attempts that did not end are ended for them, as infrastructure failures (docs/runs.md, "When a part dies"). */
    AttemptTimeouts attemptTimeouts();

    Outbox outbox();

    /**
     * Sessions that may start one attempt before it ends as an infrastructure failure: an attempt whose workers keep
     * dying on it must not be retried for ever.
     */
    @WithDefault("3")
    int maxDeliveries();

    /**
     * Standalone mode: at start, ends the attempts that an earlier process left queued or running (it owned the store
     * alone, so nobody will end them).
     */
    @WithDefault("false")
    boolean endUnfinishedAtStart();

    interface AttemptTimeouts {
        /** A running attempt (no external claim) that has not ended this long after it started. */
        @WithDefault("30m")
        Duration running();

        /** An attempt that no worker started this long after it was queued. */
        @WithDefault("24h")
        Duration queued();
    }

    interface Outbox {
        /**
         * How often the relay sends what waits in the outbox (it also runs right after each new run). The scheduler
         * reads it by name (BenchHousekeeping); it is declared here so that it is documented and validated.
         */
        @WithDefault("1s")
        Duration relayInterval();

        /**
         * A sent message the broker has not confirmed this long after, of an attempt still queued, is sent again;
         * 0 never resends (standalone mode, where the confirm is the attempt's end).
         */
        @WithDefault("2m")
        Duration resendUnconfirmedAfter();
    }

    interface Auth {
        /**
         * When false (the standalone CLI, which has no Keycloak) every caller is tenant
         * {@code local} with every role.
         */
        @WithDefault("true")
        boolean enabled();
    }
}
