package io.healbench.sandbox.service.process;

import io.healbench.sandbox.service.model.ResourceUse;
import io.healbench.sandbox.service.workspace.WorkspaceQuota;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * A started session process. It leads its own process group; when isolated, it is the outer bwrap, whose
 * PID namespace holds everything the program starts, and every process in it runs as the session's own uid.
 */
public final class GroupProcess {

    private static final Logger LOG = Logger.getLogger(GroupProcess.class);
    private static final Duration REAP_WAIT = Duration.ofSeconds(10);

    private final Process process;
    private final OptionalLong uid;
    private final Optional<SessionCgroups.SessionCgroup> cgroup;
    private final Path workspace;
    private final ExitClassifier classifier;
    private final Runnable releaseUid;
    /** What the session used, read once it has ended and before its cgroup and workspace are removed. */
    private volatile ResourceUse used = ResourceUse.unmeasured();

    GroupProcess(Process process, OptionalLong uid, Optional<SessionCgroups.SessionCgroup> cgroup, Path workspace,
                 ExitClassifier classifier, Runnable releaseUid) {
        this.process = process;
        this.uid = uid;
        this.cgroup = cgroup;
        this.workspace = workspace;
        this.classifier = classifier;
        this.releaseUid = releaseUid;
    }

    public long pid() {
        return process.pid();
    }

    public InputStream stdout() {
        return process.getInputStream();
    }

    public InputStream stderr() {
        return process.getErrorStream();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Waits up to {@code limit}; true when the process ended in time. */
    public boolean waitFor(Duration limit) throws InterruptedException {
        return process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Exit value as Java reports it: 128 + signal number when a signal ended the process. */
    public int exitValue() {
        return process.exitValue();
    }

    /** Why the ended process ended, judged from its exit status and the end of its output. */
    public ProcessExit processExit(String outputTail) {
        return classifier.classify(process.exitValue(), outputTail, used.oomKills(), used.memoryCapBytes());
    }

    /** What the session used of its caps; complete once {@link #reap()} has returned. */
    public ResourceUse resourceUse() {
        return used;
    }

    /**
     * SIGKILLs the process group, then the leader and its known descendants. For an isolated process
     * killing the outer bwrap is enough: its PID namespace's init dies with it (--die-with-parent), and
     * the kernel kills every process left in the namespace.
     */
    public void killGroup() {
        try {
            Process kill = new ProcessBuilder("kill", "-KILL", "--", "-" + process.pid())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            kill.waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            // Fall through to killing the leader and its known descendants.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    /**
     * Call once the process has ended: kills whatever could still be left (processes of the session's uid,
     * wherever they are), waits until none is, and only then frees the uid for another session.
     */
    public void reap() throws InterruptedException {
        killGroup();
        // Read before anything is removed: the workspace's tmpfs goes with the workspace, the counters with the cgroup.
        WorkspaceQuota.Usage workspaceUse = WorkspaceQuota.usage(workspace);
        used = cgroup.map(group -> group.use(workspaceUse))
                .orElse(new ResourceUse("none", 0, 0, 0, workspaceUse.capBytes(), workspaceUse.usedBytes()));
        cgroup.ifPresent(SessionCgroups.SessionCgroup::remove);
        if (uid.isEmpty()) {
            return;
        }
        long deadline = System.nanoTime() + REAP_WAIT.toNanos();
        List<Long> left = processesOf(uid.getAsLong());
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            left.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
            Thread.sleep(50);
            left = processesOf(uid.getAsLong());
        }
        if (left.isEmpty()) {
            releaseUid.run();
        } else {
            // Keep the uid leased: a new session must not share its process count with survivors.
            LOG.errorf("processes %s of sandbox uid %d survived SIGKILL for %d s; the uid stays leased", left, uid.getAsLong(),
                    REAP_WAIT.toSeconds());
        }
    }

    /** Pids whose real uid is {@code uid}, read from /proc/PID/status. */
    static List<Long> processesOf(long uid) {
        try (Stream<Path> entries = Files.list(Path.of("/proc"))) {
            return entries.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
                    .filter(p -> realUid(p.resolve("status")) == uid)
                    .map(p -> Long.parseLong(p.getFileName().toString()))
                    .toList();
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc", e);
        }
    }

    /** The real uid in a {@code /proc/<pid>/status} file; -1 when the process is gone. The isolation tests count by it too. */
    public static long realUid(Path status) {
        try {
            // Latin-1: a process may name itself with bytes that are not UTF-8, and must not hide that way.
            for (String line : Files.readAllLines(status, StandardCharsets.ISO_8859_1)) {
                if (line.startsWith("Uid:")) {
                    return Long.parseLong(line.substring(4).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException | RuntimeException e) {
            // The process ended while we looked.
        }
        return -1;
    }
}
