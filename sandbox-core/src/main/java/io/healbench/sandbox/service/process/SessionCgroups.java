package io.healbench.sandbox.service.process;

import io.healbench.sandbox.service.model.ResourceUse;
import io.healbench.sandbox.service.workspace.WorkspaceQuota;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * A memory cap and a process cap per session, not per process: every process of a session (the program, its forks,
 * probes, anything it starts) is in one cgroup of its own, so 256 processes of 2 GiB each cannot add up to 512 GiB.
 * The kernel charges the cgroup for what its processes allocate and for the pages they write to tmpfs (the session's
 * {@code /tmp}, {@code /dev/shm} and workspace), and kills inside it, not elsewhere, when the cap is reached.
 *
 * <p>cgroup v2 where the machine has it ({@code memory.max}, {@code memory.swap.max}, {@code pids.max}, under a
 * {@code healbench-sessions} child of the service's own cgroup); otherwise cgroup v1's memory and pids controllers
 * ({@code memory.limit_in_bytes}, {@code memory.memsw.limit_in_bytes} where swap is accounted, {@code pids.max}). A
 * machine with neither, or where the service may not create groups, keeps the per-process rlimits only, and says so
 * ({@link #accounting()}) in every outcome. Groups are named after the session's leased uid, so a group left by a
 * dead service is recognised and swept when the same uid is leased again.
 */
final class SessionCgroups {

    private static final Logger LOG = Logger.getLogger(SessionCgroups.class);
    private static final String PARENT = "healbench-sessions";
    /**
     * Processes of a session that are not the session's uid's: bwrap and the init of its PID namespace, both root. The
     * uid's own count is held exactly by RLIMIT_NPROC; the group's cap leaves room for these two on top.
     */
    static final int BWRAP_PROCESSES = 2;

    enum Version {
        V2("cgroup v2"), V1("cgroup v1"), NONE("none");

        /** How outcomes name it ({@code memory_accounting}). */
        final String label;

        Version(String label) {
            this.label = label;
        }
    }

    private final Version version;
    /** v2: the one parent; v1: the memory controller's parent, then the pids controller's. */
    private final List<Path> parents;
    private final long memoryBytes;
    private final int processes;

    private SessionCgroups(Version version, List<Path> parents, long memoryBytes, int processes) {
        this.version = version;
        this.parents = parents;
        this.memoryBytes = memoryBytes;
        this.processes = processes;
    }

    /**
     * What this machine offers under {@code fsRoot} (normally {@code /sys/fs/cgroup}) to a process whose
     * {@code /proc/self/cgroup} reads {@code selfCgroup}; NONE when the parent groups cannot be made.
     */
    static SessionCgroups detect(Path fsRoot, String selfCgroup, long memoryBytes, int processes) {
        try {
            if (Files.isRegularFile(fsRoot.resolve("cgroup.controllers"))) {
                Path own = under(fsRoot, ownPath(selfCgroup, ""));
                Path parent = own.resolve(PARENT);
                Files.createDirectories(parent);
                // v2 lets controllers be enabled for children only of a group with no processes of its own: the parent
                // made here holds none, and its own parent must already delegate memory and pids to it.
                String offered = Files.readString(parent.resolve("cgroup.controllers"));
                if (!offered.contains("memory") || !offered.contains("pids")) {
                    LOG.warnf("cgroup v2 at %s does not delegate memory and pids to %s (it offers: %s); per-process limits only",
                            fsRoot, parent, offered.strip());
                    return none(memoryBytes, processes);
                }
                Files.writeString(parent.resolve("cgroup.subtree_control"), "+memory +pids");
                return new SessionCgroups(Version.V2, List.of(parent), memoryBytes, processes);
            }
            if (Files.isRegularFile(fsRoot.resolve("memory/memory.limit_in_bytes")) && Files.isRegularFile(fsRoot.resolve("pids/cgroup.procs"))) {
                List<Path> parents = new ArrayList<>();
                for (String controller : List.of("memory", "pids")) {
                    Path parent = under(fsRoot.resolve(controller), ownPath(selfCgroup, controller)).resolve(PARENT);
                    Files.createDirectories(parent);
                    parents.add(parent);
                }
                return new SessionCgroups(Version.V1, List.copyOf(parents), memoryBytes, processes);
            }
            LOG.warnf("no cgroup memory controller under %s; per-process limits only", fsRoot);
        } catch (IOException | RuntimeException e) {
            LOG.warnf("cannot make session cgroups under %s (%s); per-process limits only", fsRoot, e.toString());
        }
        return none(memoryBytes, processes);
    }

    private static SessionCgroups none(long memoryBytes, int processes) {
        return new SessionCgroups(Version.NONE, List.of(), memoryBytes, processes);
    }

    /**
     * The service's own group in one hierarchy, from {@code /proc/self/cgroup}: the {@code 0::} line for v2, the line
     * naming {@code controller} for v1; {@code /} when none matches.
     */
    static String ownPath(String selfCgroup, String controller) {
        for (String line : selfCgroup.split("\n")) {
            String[] fields = line.split(":", 3);
            if (fields.length == 3 && (controller.isEmpty() ? fields[0].equals("0") && fields[1].isEmpty()
                    : List.of(fields[1].split(",")).contains(controller))) {
                return fields[2].strip();
            }
        }
        return "/";
    }

    private static Path under(Path hierarchy, String own) {
        Path path = hierarchy.resolve(own.replaceFirst("^/+", "")).normalize();
        // A group path is the kernel's, but a ".." in it must still not lead out of the hierarchy.
        if (!path.startsWith(hierarchy)) {
            throw new IllegalArgumentException("cgroup path " + own + " leaves " + hierarchy);
        }
        return path;
    }

    /** "cgroup v2", "cgroup v1" or "none": which per-session memory cap holds here. */
    String accounting() {
        return version.label;
    }

    /** Whether sessions get a group of their own here (else per-process limits only). */
    boolean capsSessions() {
        return version != Version.NONE;
    }

    /**
     * A fresh group for the session running as {@code uid}, with the caps written; what an earlier holder of the uid
     * left is killed and removed first. Empty where there are no cgroups.
     */
    Optional<SessionCgroup> create(long uid) throws IOException {
        if (!capsSessions()) {
            return Optional.empty();
        }
        List<Path> dirs = new ArrayList<>();
        for (Path parent : parents) {
            Path dir = parent.resolve("session-" + uid);
            if (Files.isDirectory(dir)) {
                new SessionCgroup(version, List.of(dir), memoryBytes).remove();
            }
            Files.createDirectory(dir);
            dirs.add(dir);
        }
        SessionCgroup group = new SessionCgroup(version, List.copyOf(dirs), memoryBytes);
        try {
            group.limit(memoryBytes, processes + BWRAP_PROCESSES);
        } catch (IOException | RuntimeException e) {
            group.remove();
            throw e;
        }
        return Optional.of(group);
    }

    /** One session's group (v1: one per controller). */
    static final class SessionCgroup {

        private static final int REMOVE_ATTEMPTS = 100;

        private final Version version;
        private final List<Path> dirs;
        private final long memoryCapBytes;

        SessionCgroup(Version version, List<Path> dirs, long memoryCapBytes) {
            this.version = version;
            this.dirs = dirs;
            this.memoryCapBytes = memoryCapBytes;
        }

        /** What the session used of its memory cap (and the workspace's, measured by the caller). */
        ResourceUse use(WorkspaceQuota.Usage workspace) {
            return new ResourceUse(version.label, memoryCapBytes, peakMemoryBytes(), oomKills(),
                    workspace.capBytes(), workspace.usedBytes());
        }

        /** The files a process writes its pid to to join: the prelude of the command line does, before bwrap. */
        List<Path> procsFiles() {
            return dirs.stream().map(dir -> dir.resolve("cgroup.procs")).toList();
        }

        private void limit(long memoryBytes, int processes) throws IOException {
            if (version == Version.V2) {
                Path dir = dirs.get(0);
                write(dir.resolve("memory.max"), memoryBytes);
                // Swap would let a session hold more than its cap; where swap is not accounted the file is absent.
                writeIfPresent(dir.resolve("memory.swap.max"), 0);
                write(dir.resolve("pids.max"), processes);
            } else {
                Path memory = dirs.get(0);
                write(memory.resolve("memory.limit_in_bytes"), memoryBytes);
                writeIfPresent(memory.resolve("memory.memsw.limit_in_bytes"), memoryBytes);
                write(dirs.get(1).resolve("pids.max"), processes);
            }
        }

        /** The most memory the session's processes held at once, in bytes; 0 where the kernel does not say. */
        private long peakMemoryBytes() {
            Path memory = dirs.get(0);
            return readLong(memory.resolve(version == Version.V2 ? "memory.peak" : "memory.max_usage_in_bytes"));
        }

        /** How many times the kernel killed a process of the session for reaching the memory cap. */
        private long oomKills() {
            Path memory = dirs.get(0);
            Path events = memory.resolve(version == Version.V2 ? "memory.events" : "memory.oom_control");
            try {
                for (String line : Files.readAllLines(events, StandardCharsets.US_ASCII)) {
                    if (line.startsWith("oom_kill ")) {
                        return Long.parseLong(line.substring("oom_kill ".length()).strip());
                    }
                }
            } catch (IOException | NumberFormatException e) {
                // No counter: no kill is claimed.
            }
            return 0;
        }

        /** Pids still in the group. */
        List<Long> processes() {
            List<Long> pids = new ArrayList<>();
            for (Path procs : procsFiles()) {
                try {
                    for (String line : Files.readAllLines(procs, StandardCharsets.US_ASCII)) {
                        if (!line.isBlank()) {
                            pids.add(Long.parseLong(line.strip()));
                        }
                    }
                } catch (IOException | NumberFormatException e) {
                    // The group is gone.
                }
            }
            return pids;
        }

        /** Kills what is left in the group and removes it (a group can be removed only once it is empty). */
        void remove() {
            for (int attempt = 0; attempt < REMOVE_ATTEMPTS; attempt++) {
                processes().forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
                boolean removed = true;
                for (Path dir : dirs) {
                    try {
                        Files.deleteIfExists(dir);
                    } catch (IOException e) {
                        removed = false;
                    }
                }
                if (removed) {
                    return;
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            LOG.errorf("session cgroup %s could not be removed; it is swept when its uid is leased again", dirs);
        }

        private static void write(Path file, long value) throws IOException {
            Files.writeString(file, Long.toString(value));
        }

        private static void writeIfPresent(Path file, long value) throws IOException {
            if (Files.exists(file)) {
                write(file, value);
            }
        }

        private static long readLong(Path file) {
            try {
                return Long.parseLong(Files.readString(file, StandardCharsets.US_ASCII).strip());
            } catch (IOException | NumberFormatException e) {
                return 0;
            }
        }
    }
}
