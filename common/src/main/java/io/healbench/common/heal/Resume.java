package io.healbench.common.heal;

import io.healbench.common.wire.WireNames;

/** How the paused program goes on after a heal; healrt's control channel and the events spell each in lower case. */
public enum Resume {
    /** Continue after the failing statement (what an unset resume means everywhere). */
    SKIP,
    /** Run the failing statement again. */
    RETRY,
    /** Return from the crashing function the value the heal assigned to the return slot {@code _return_}. */
    RETURN;

    public String wireName() {
        return WireNames.of(this);
    }

    /** @throws IllegalArgumentException when {@code text} is not skip, retry or return */
    public static Resume parse(String text) {
        return WireNames.parse(Resume.class, "resume", text);
    }
}
