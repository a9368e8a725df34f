package io.healbench.sandbox.service.process;

import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxException.Kind;
import java.util.BitSet;

/**
 * Hands out one user id per live session process. RLIMIT_NPROC counts every process of a real user id
 * system-wide and is not enforced for root, so a session needs an unprivileged id of its own for the
 * process limit to contain exactly that session (a fork bomb in one session cannot starve another).
 */
final class SandboxUids {

    static final int RANGE = 4096;

    private final long base;
    private final BitSet leased = new BitSet(RANGE);

    SandboxUids(long base) {
        this.base = base;
    }

    synchronized long lease() {
        int slot = leased.nextClearBit(0);
        if (slot >= RANGE) {
            throw new SandboxException(Kind.RESOURCE_EXHAUSTED, "NO_SANDBOX_UID", "all " + RANGE + " sandbox user ids are in use");
        }
        leased.set(slot);
        return base + slot;
    }

    /** Returns an id; only call once no process of it is left, or the next session would share its process count. */
    synchronized void release(long uid) {
        leased.clear((int) (uid - base));
    }
}
