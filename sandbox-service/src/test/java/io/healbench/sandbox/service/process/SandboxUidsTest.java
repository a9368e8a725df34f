package io.healbench.sandbox.service.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Sandbox uids are leased machine-wide: a uid another process holds is never handed out here. */
class SandboxUidsTest {

    /** Far from the service's default range, so a test run never meets a live sandbox of this machine. */
    private static final long BASE = 1_950_000_000L;

    @TempDir
    Path dir;

    @Test
    void aUidLockedByAnotherProcessIsSkippedUntilThatProcessDies() throws Exception {
        Path locks = dir.resolve("uids");
        SandboxUids uids = new SandboxUids(BASE, locks);
        long first = uids.lease();
        assertEquals(BASE, first);
        uids.release(first);

        // Another process (not this JVM) takes the first uid's lock, the way a second HealBench process would.
        Process holder = new ProcessBuilder("python3", "-c", String.join("\n",
                "import fcntl, sys, time",
                "f = open(sys.argv[1], 'w')",
                "fcntl.lockf(f, fcntl.LOCK_EX)",
                "print('locked', flush=True)",
                "time.sleep(120)"), locks.resolve(Long.toString(BASE)).toString())
                .redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            assertEquals("locked", out.readLine());
            long leased = uids.lease();
            assertNotEquals(BASE, leased, "a uid locked by another process must not be leased");
            assertEquals(BASE + 1, leased);
            uids.release(leased);
        } finally {
            holder.destroyForcibly();
            holder.waitFor(10, TimeUnit.SECONDS);
        }
        // The kernel dropped the dead holder's lock: the uid is free again.
        assertEquals(BASE, uids.lease());
    }

    @Test
    void twoLeaseTablesNeverShareAUid() {
        Path locks = dir.resolve("uids");
        SandboxUids one = new SandboxUids(BASE, locks);
        SandboxUids other = new SandboxUids(BASE, locks);
        long a = one.lease();
        long b = other.lease();
        long c = one.lease();
        assertEquals(3, java.util.Set.of(a, b, c).size(), "uids " + a + ", " + b + ", " + c);
        one.release(a);
        assertEquals(a, other.lease(), "a released uid is free for the next lease anywhere");
    }

    @Test
    void theLockDirectoryIsRootsAlone() throws Exception {
        Path locks = dir.resolve("uids");
        new SandboxUids(BASE, locks).lease();
        assertTrue(Files.isDirectory(locks));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(locks)));
    }
}
