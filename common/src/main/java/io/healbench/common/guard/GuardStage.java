package io.healbench.common.guard;

import io.healbench.common.wire.WireNames;

/** The stage of HealGuard that took a decision. */
public enum GuardStage {
    /** The HealCore grammar gate, before the heal runs. */
    GATE,
    /** The static taint analysis of the heal's dry run. */
    STATIC,
    /** The runtime's tracking of healed state in the resumed process. */
    DYNAMIC;

    public String wireName() {
        return WireNames.of(this);
    }

    /** @throws IllegalArgumentException when {@code text} names no stage */
    public static GuardStage parse(String text) {
        return WireNames.parse(GuardStage.class, "guard stage", text);
    }
}
