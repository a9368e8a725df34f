package io.healbench.sandbox.service.workspace;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * One sandbox-service's directory under a workspace root that several services on a machine may share (two standalone
 * runs, a test suite beside a run): {@code ROOT/<owner>}, held by an exclusive lock on {@code ROOT/<owner>.lock} for
 * as long as the service lives. The kernel drops the lock when its holder dies, however it dies; so at start every
 * owner directory whose lock is free belongs to a service that is gone, and is swept, with whatever workspaces it
 * left. Directories of live services are never touched.
 */
final class OwnedDirectory {

    private static final Logger LOG = Logger.getLogger(OwnedDirectory.class);
    private static final String LOCK_SUFFIX = ".lock";

    private final Path dir;
    private final FileChannel channel;
    private final FileLock lock;

    private OwnedDirectory(Path dir, FileChannel channel, FileLock lock) {
        this.dir = dir;
        this.channel = channel;
        this.lock = lock;
    }

    /** Sweeps what dead owners left under {@code root}, then claims a new owner directory there. */
    static OwnedDirectory claim(Path root) {
        try {
            Files.createDirectories(root);
            sweep(root);
            // Short: the control socket path of a workspace below it must stay under the 108-byte sun_path limit.
            String owner = UUID.randomUUID().toString().substring(0, 8);
            FileChannel channel = FileChannel.open(root.resolve(owner + LOCK_SUFFIX), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
            FileLock lock = channel.lock();
            Path dir = Files.createDirectories(root.resolve(owner));
            return new OwnedDirectory(dir, channel, lock);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot claim a workspace directory under " + root, e);
        }
    }

    Path dir() {
        return dir;
    }

    void release() {
        try {
            lock.release();
            channel.close();
        } catch (IOException e) {
            LOG.warnf("releasing %s: %s", dir, e.getMessage());
        }
    }

    /** Deletes every owner directory (and its lock file) whose lock no live process holds. */
    static void sweep(Path root) throws IOException {
        List<Path> locks;
        try (Stream<Path> entries = Files.list(root)) {
            locks = entries.filter(p -> p.getFileName().toString().endsWith(LOCK_SUFFIX)).toList();
        }
        for (Path lockFile : locks) {
            String owner = lockFile.getFileName().toString();
            Path ownerDir = root.resolve(owner.substring(0, owner.length() - LOCK_SUFFIX.length()));
            try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE);
                 FileLock free = channel.tryLock()) {
                if (free == null) {
                    continue; // a live service holds it
                }
                if (Files.isDirectory(ownerDir)) {
                    try (Stream<Path> workspaces = Files.list(ownerDir)) {
                        workspaces.forEach(WorkspaceQuota::unmount);
                    }
                }
                TreeDeletion.deleteTree(ownerDir);
                Files.deleteIfExists(lockFile);
                LOG.infof("swept %s: its service is gone", ownerDir);
            } catch (OverlappingFileLockException e) {
                // held by this JVM (another service instance in it): live
            }
        }
    }
}
