package io.healbench.cli;

/** The {@code healbench} command's exit statuses, as the README documents them. */
public final class ExitStatus {

    /** The run completed, and no attempt failed for an infrastructure reason. */
    public static final int COMPLETED = 0;
    /** The run failed, or the server could not be reached or asked. */
    public static final int FAILED = 1;
    /** A command line that cannot be run. */
    public static final int USAGE = 2;
    /** The run could not start: the build, the dataset or the machine (preflight) is not ready. */
    public static final int NOT_READY = 3;
    /** The run completed, but at least one attempt failed for an infrastructure reason, not the agent's. */
    public static final int INFRASTRUCTURE_FAILURES = 4;

    private ExitStatus() {
    }
}
