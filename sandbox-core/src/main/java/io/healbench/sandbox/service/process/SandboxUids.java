package io.healbench.sandbox.service.process;

import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxException.Kind;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;

/**
 * Hands out one user id per live session process. RLIMIT_NPROC counts every process of a real user id
 * system-wide and is not enforced for root, so a session needs an unprivileged id of its own for the
 * process limit to contain exactly that session (a fork bomb in one session cannot starve another).
 *
 * <p>An id is unique on the machine, not only in this service: every HealBench process on the machine draws from
 * the same range, and a session's end kills every process of its id. A lease is therefore an exclusive lock on the
 * file {@code <lockDir>/<uid>}, held for as long as the id is leased; the kernel drops it when the holding process
 * dies, however it dies. An id whose lock is free but which still has processes (left by a holder that died) is
 * skipped. The lock directory is root's alone (0700), so no session can take or hold a lock.
 */
final class SandboxUids {

    static final int RANGE = 4096;

    private final long base;
    private final Path lockDir;
    /** Slot to the lock held for it; a slot is leased exactly when it has a lock here. */
    private final Map<Integer, FileLock> leased = new HashMap<>();

    SandboxUids(long base, Path lockDir) {
        this.base = base;
        this.lockDir = lockDir;
    }

    synchronized long lease() {
        prepareLockDir();
        for (int slot = 0; slot < RANGE; slot++) {
            if (leased.containsKey(slot)) {
                continue;
            }
            long uid = base + slot;
            FileLock lock = tryLock(uid);
            if (lock == null) {
                continue;  // another HealBench process on this machine holds it
            }
            if (!GroupProcess.processesOf(uid).isEmpty()) {
                unlock(lock);  // survivors of a holder that died: not free until they are gone
                continue;
            }
            leased.put(slot, lock);
            return uid;
        }
        throw new SandboxException(Kind.RESOURCE_EXHAUSTED, "NO_SANDBOX_UID",
                "all " + RANGE + " sandbox user ids from " + base + " are in use on this machine");
    }

    /** Returns an id; only call once no process of it is left, or the next session would share its process count. */
    synchronized void release(long uid) {
        FileLock lock = leased.remove((int) (uid - base));
        if (lock != null) {
            unlock(lock);
        }
    }

    private void prepareLockDir() {
        try {
            if (!Files.isDirectory(lockDir)) {
                Files.createDirectories(lockDir);
            }
            Files.setPosixFilePermissions(lockDir, PosixFilePermissions.fromString("rwx------"));
        } catch (IOException | UnsupportedOperationException e) {
            throw new SandboxException(Kind.FAILED_PRECONDITION, "UID_LOCKS_UNAVAILABLE",
                    "cannot use " + lockDir + " for sandbox uid locks (healbench.sandbox.uid-lock-dir): " + e.getMessage(), e);
        }
    }

    private FileLock tryLock(long uid) {
        FileChannel channel = null;
        try {
            channel = FileChannel.open(lockDir.resolve(Long.toString(uid)), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;  // another lease table in this JVM holds it
            }
            if (lock == null) {
                channel.close();
            }
            return lock;
        } catch (IOException e) {
            closeQuietly(channel);
            throw new SandboxException(Kind.FAILED_PRECONDITION, "UID_LOCKS_UNAVAILABLE",
                    "cannot lock " + lockDir.resolve(Long.toString(uid)) + ": " + e.getMessage(), e);
        }
    }

    private static void unlock(FileLock lock) {
        try {
            lock.release();
        } catch (IOException e) {
            // Closing the channel below drops the lock as well.
        }
        closeQuietly(lock.channel());
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel == null) {
            return;
        }
        try {
            channel.close();
        } catch (IOException e) {
            // Nothing left to release.
        }
    }
}
