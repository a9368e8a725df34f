package io.healbench.common.dataset;

import java.util.Arrays;
import java.util.stream.Collectors;

/** An instance's tier, its {@code provenance.kind} (docs/dataset.md §6). */
public enum Tier {
    /** The pinned subject ships the bug; REFERENCE = subject + our fix patch. */
    REAL_BUG("real-bug"),
    /** BUGGY = subject + a mined bug patch; REFERENCE = the pristine subject. */
    INJECTED("injected");

    private final String label;

    Tier(String label) {
        this.label = label;
    }

    /** The name instance.yaml and the command line use. */
    public String label() {
        return label;
    }

    public static Tier parse(String text) {
        for (Tier tier : values()) {
            if (tier.label.equals(text)) {
                return tier;
            }
        }
        throw new IllegalArgumentException("tier must be one of "
                + Arrays.stream(values()).map(Tier::label).collect(Collectors.joining(", ")) + ", got '" + text + "'");
    }

    @Override
    public String toString() {
        return label;
    }
}
