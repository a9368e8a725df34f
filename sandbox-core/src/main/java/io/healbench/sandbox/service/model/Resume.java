package io.healbench.sandbox.service.model;

import java.util.Locale;

/** How the paused program goes on after a heal; healrt's control channel names each in lower case. */
public enum Resume {
    /** Continue after the failing statement. */
    SKIP,
    /** Run the failing statement again. */
    RETRY,
    /** Return from the crashing function the value the heal assigned to the return slot. */
    RETURN;

    /** The name healrt's control channel uses. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
