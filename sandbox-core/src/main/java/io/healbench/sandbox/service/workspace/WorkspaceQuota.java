package io.healbench.sandbox.service.workspace;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * A disk cap per workspace, not per file: each workspace is a tmpfs of its own, mounted with {@code size=} the cap,
 * so a session that writes many files each under the file-size limit still stops at the cap (ENOSPC). tmpfs pages
 * are memory, charged to the cgroup of the process that writes them, so what the session writes also counts against
 * its memory cap. Where mounting is not allowed (no CAP_SYS_ADMIN) the workspace is a plain directory and only the
 * per-file limit holds, and {@link #usage} says so.
 */
public final class WorkspaceQuota {

    private static final Logger LOG = Logger.getLogger(WorkspaceQuota.class);

    private final long bytes;
    private volatile boolean mountable;

    WorkspaceQuota(long bytes) {
        this.bytes = bytes;
        this.mountable = bytes > 0;
    }

    /** Mounts the capped tmpfs on the new, empty {@code dir}; false (and from then on) where the machine refuses. */
    boolean mount(Path dir) {
        if (!mountable) {
            return false;
        }
        if (run(List.of("mount", "-t", "tmpfs", "-o", "size=" + bytes + ",mode=0700,nosuid,nodev", "healbench-workspace",
                dir.toString()))) {
            return true;
        }
        mountable = false;
        LOG.warnf("cannot mount a tmpfs on %s; workspaces have a per-file size limit only", dir);
        return false;
    }

    /** Unmounts {@code dir} if a workspace tmpfs is mounted on it, discarding its content; true if one was. */
    static boolean unmount(Path dir) {
        if (!isMountPoint(dir)) {
            return false;
        }
        // Lazy: a process of the session that has not quite gone yet must not keep the workspace alive.
        return run(List.of("umount", "-l", dir.toString()));
    }

    /** A workspace's tmpfs: its size and the bytes in use; both -1 where the workspace has none. */
    public record Usage(long capBytes, long usedBytes) {}

    public static Usage usage(Path dir) {
        if (!isMountPoint(dir)) {
            return new Usage(-1, -1);
        }
        try {
            FileStore store = Files.getFileStore(dir);
            return new Usage(store.getTotalSpace(), store.getTotalSpace() - store.getUnallocatedSpace());
        } catch (IOException e) {
            return new Usage(-1, -1);
        }
    }

    private static boolean isMountPoint(Path dir) {
        try {
            return Files.isDirectory(dir) && Files.isDirectory(dir.getParent())
                    && !Files.getAttribute(dir, "unix:dev").equals(Files.getAttribute(dir.getParent(), "unix:dev"));
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    private static boolean run(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return process.waitFor(10, TimeUnit.SECONDS) && process.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
