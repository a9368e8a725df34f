package io.healbench.common.guard;

import io.healbench.common.wire.WireNames;

/** What a HealGuard stage decided. */
public enum GuardVerdict {
    /** The heal may run (gate, static). */
    ACCEPTED,
    /** The heal was refused and did not run (gate; static in enforce mode). */
    REJECTED,
    /** A protected operation was stopped before it acted (dynamic, enforce mode). */
    BLOCKED,
    /** A refusal or a block that observe mode let through, recorded (static, dynamic). */
    OBSERVED,
    /** A conservative label, a healed None or bool, was recorded (dynamic). */
    RECORDED,
    /** A conservative block waived by a clean static verdict (dynamic). */
    WAIVED;

    public String wireName() {
        return WireNames.of(this);
    }

    /** @throws IllegalArgumentException when {@code text} names no verdict */
    public static GuardVerdict parse(String text) {
        return WireNames.parse(GuardVerdict.class, "guard verdict", text);
    }
}
