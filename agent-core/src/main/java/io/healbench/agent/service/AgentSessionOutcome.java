package io.healbench.agent.service;

import io.healbench.common.outcome.ExitCause;

/**
 * How the healed program ended, as the sandbox reports it in FINISHED; {@code traceSimilarity} is its trace
 * similarity with the REFERENCE run (docs/trace-similarity.md). {@code reported} is false when the program never
 * reported an outcome and the sandbox inferred it from the process's end (its detail then quotes the last output).
 */
public record AgentSessionOutcome(
        boolean proceeded, boolean passed, ExitCause exitCause, int exitCode, long wallTimeMs, String detail, double traceSimilarity,
        boolean reported) {

    /** The harness failed to run the program: the sandbox could not, or the runtime's test runner itself raised. */
    public boolean isInfrastructureError() {
        return exitCause == ExitCause.ERROR;
    }
}
