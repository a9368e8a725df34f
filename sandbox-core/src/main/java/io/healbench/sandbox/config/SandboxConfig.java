package io.healbench.sandbox.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/** Settings of the sandbox, all under {@code healbench.sandbox.*} and all with defaults (standalone mode). */
@ConfigMapping(prefix = "healbench.sandbox")
public interface SandboxConfig {

    /** Where workspaces are created; default {@code ${java.io.tmpdir}/healbench/workspaces}. */
    Optional<Path> workspaceRoot();

    /** Dataset directory; default {@code ${healbench.home}/dataset}. */
    Optional<Path> datasetDir();

    /** Directory holding the {@code healrt} package; default {@code ${healbench.home}/healrt}. */
    Optional<Path> healrtDir();

    /**
     * The interpreter that runs the dataset tooling ({@code python3 -m hbdata materialize}); it needs only the
     * standard library. The instance's own interpreter comes from the workspace's run plan.
     */
    @WithDefault("python3")
    String hbdataPython();

    /** Time allowed to materialize a workspace; the first use of a subject fetches it into the cache. */
    @WithDefault("600s")
    Duration materializeTimeout();

    /** Live sessions (process not yet ended) allowed at once; more are refused. */
    @WithDefault("4")
    int maxSessions();

    /** Wall-clock limit of one session's process; on expiry its process group is killed. */
    @WithDefault("300s")
    Duration wallClockLimit();

    /** Cap on the stdout plus stderr kept per session; the excess is dropped with a marker. */
    @WithDefault("1048576")
    long outputLimitBytes();

    /** The runtime's own time budget for a heal; the sandbox waits this plus {@link #replyMargin()}. */
    @WithDefault("30s")
    Duration healTimeout();

    /** The runtime's own time budget for a probe; the sandbox waits this plus {@link #replyMargin()}. */
    @WithDefault("20s")
    Duration probeTimeout();

    /** Slack on top of the runtime's budgets for the answer to travel back. */
    @WithDefault("5s")
    Duration replyMargin();

    /** Time allowed for the HealCore gate (guard-service) to answer. */
    @WithDefault("10s")
    Duration gateTimeout();

    /** Time allowed for the static stage (guard-service's AnalyzeHeal) to answer. */
    @WithDefault("60s")
    Duration analysisTimeout();

    /** Where the protected-operation policies are; default {@code <dataset-dir>/policies}. */
    Optional<Path> policiesDir();

    /** Cap on heal points of one execution, passed to the runtime. */
    @WithDefault("10")
    int maxHealPoints();

    /** Where recorded REFERENCE runs are cached; default {@code ${healbench.home}/.cache/reference}. */
    Optional<Path> referenceCache();

    /** The shared cache of healrt's compiled rewrites (SharedCodeCache); default {@code ${healbench.home}/.cache/healrt-code}. */
    Optional<Path> codeCache();

    /** REFERENCE runs recorded at once; they are outside {@link #maxSessions()}, so this bounds them. */
    @WithDefault("1")
    int referenceConcurrency();

    /**
     * How long a session stays after its process ended, or after it was closed, before the sandbox closes it itself
     * and forgets it: its workspace is deleted and GetSession answers NOT_FOUND. A client that is gone leaves nothing.
     */
    @WithDefault("300s")
    Duration endedRetention();
}
