package io.healbench.common.outcome;

import io.healbench.common.wire.WireNames;

/**
 * Who is to blame when an attempt did not run to a proper end. Only {@link #AGENT} counts against the agent; the
 * harness's failures ({@link #INFRASTRUCTURE}, {@link #GRADER}) are reported apart, with their own counts.
 */
public enum FailureClass {
    /** The attempt ran to its end; its outcome says how the agent did. */
    NONE,
    /** The platform failed: the sandbox, the broker, a dead worker, a lost claim. */
    INFRASTRUCTURE,
    /** The agent failed: malformed replies, failed model calls, its own crash. */
    AGENT,
    /** The attempt's result could not be graded. */
    GRADER;

    public String wireName() {
        return WireNames.of(this);
    }

    /** @throws IllegalArgumentException when {@code text} is none of the lower-case names */
    public static FailureClass parse(String text) {
        return WireNames.parse(FailureClass.class, "failure class", text);
    }
}
