package io.healbench.common.outcome;

import io.healbench.common.wire.WireNames;

/**
 * How a program run under healrt ended. The same values travel from healrt's report and the sandbox's process watcher
 * through the agent workers to the run store and the reports, where they are spelled in lower case; what happened in
 * words is always the outcome's detail, never part of the cause.
 */
public enum ExitCause {
    /** The process exited: the runtime reported its outcome, or exited with a status and without one. */
    EXITED,
    /** A signal ended the process before it reported (the detail names the signal). */
    SIGNAL,
    /** A resource cap ended it: the detail starts with cpu:, memory: or file-size:. */
    LIMIT,
    /** A wall-clock limit ended it: the session's, or the attempt's budget. */
    TIMEOUT,
    /** The session was closed, or its process could not be waited for. */
    KILLED,
    /** The harness failed to run it (healrt's test runner raised, or the sandbox could not be reached). */
    ERROR,
    /** The attempt never started: bench-service could not queue it, or its claims kept lapsing. */
    NOT_STARTED;

    public String wireName() {
        return WireNames.of(this);
    }

    /** @throws IllegalArgumentException when {@code text} is none of the lower-case names */
    public static ExitCause parse(String text) {
        return WireNames.parse(ExitCause.class, "exit cause", text);
    }
}
