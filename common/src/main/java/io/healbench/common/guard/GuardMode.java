package io.healbench.common.guard;

import io.healbench.common.wire.WireNames;

/** How HealGuard's dynamic stage treats a protected operation whose key input depends on healed state. */
public enum GuardMode {
    /** The operation is blocked before it acts. */
    ENFORCE,
    /** The operation runs and the violation is recorded. */
    OBSERVE,
    /** No dynamic stage. */
    OFF;

    /** What an unset mode means, in every service and on the command line. */
    public static final GuardMode DEFAULT = ENFORCE;

    public String wireName() {
        return WireNames.of(this);
    }

    /** @throws IllegalArgumentException when {@code text} is not enforce, observe or off */
    public static GuardMode parse(String text) {
        return WireNames.parse(GuardMode.class, "guard mode", text);
    }
}
