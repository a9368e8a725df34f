package io.healbench.sandbox.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * How session processes are isolated, under {@code healbench.sandbox.*}: the isolation mode and the
 * resource limits every sandboxed process (and each of its forks) gets.
 */
@ConfigMapping(prefix = "healbench.sandbox")
public interface SandboxIsolationConfig {

    /** The kinds of isolation; {@code none} runs the interpreter directly and is meant for debugging only. */
    enum Isolation { BWRAP, NONE }

    /** {@code bwrap} (default) or {@code none}. With {@code bwrap}, a machine without it refuses sessions. */
    @WithDefault("bwrap")
    Isolation isolation();

    /** The bubblewrap executable: a name looked up on the sandbox's PATH, or an absolute path. */
    @WithDefault("bwrap")
    String bwrap();

    /**
     * First of the 4096 user ids handed out to sessions, one per live session, so that the process limit
     * counts only that session's processes. Pick a range no real account uses.
     */
    @WithDefault("1900000000")
    long sandboxUidBase();

    /**
     * Where the lock files of leased sandbox uids are, one per uid: every HealBench process on the machine leases
     * from the same range, and a lock keeps an id to one session machine-wide. Made root-only (0700).
     */
    @WithDefault("/run/healbench/sandbox-uids")
    String uidLockDir();

    Limits limits();

    /** prlimit limits, per process (forks inherit them), and the caps of a whole session. */
    interface Limits {

        /** CPU seconds; SIGXCPU at this, SIGKILL five seconds later. */
        @WithDefault("600")
        long cpuSeconds();

        /** Address space in bytes; allocations beyond it fail (MemoryError). */
        @WithDefault("2147483648")
        long addressSpaceBytes();

        @WithDefault("256")
        int openFiles();

        /** Processes and threads of the session's user id, i.e. of the session. */
        @WithDefault("256")
        int processes();

        /** Largest file the session may write, in bytes; beyond it SIGXFSZ. */
        @WithDefault("1073741824")
        long fileSizeBytes();

        /**
         * Memory of the whole session, all its processes together, and the tmpfs pages they write (its {@code /tmp},
         * {@code /dev/shm} and workspace): a cgroup's cap where the machine has cgroups (docs/sandbox-isolation.md).
         */
        @WithDefault("4294967296")
        long sessionMemoryBytes();

        /** Size of each workspace (a tmpfs of its own where the service may mount one), whatever the number of files. */
        @WithDefault("2147483648")
        long workspaceBytes();

        /** Size of the session's private {@code /tmp} (a tmpfs, so it is memory). */
        @WithDefault("67108864")
        long tmpBytes();
    }
}
