package io.healbench.agent.service;

/**
 * How the healed program ended, as the sandbox reports it in FINISHED; {@code traceSimilarity} is its trace
 * similarity with the REFERENCE run (docs/trace-similarity.md). {@code reported} is false when the program never
 * reported an outcome and the sandbox inferred it from the process's end (its detail then quotes the last output).
 */
public record AgentSessionOutcome(
        boolean proceeded, boolean passed, String exitCause, int exitCode, long wallTimeMs, String detail, double traceSimilarity,
        boolean reported) {

    /**
     * The harness failed to run the program: the sandbox says {@code error}, and the runtime reports
     * {@code error: <exception>} when the test runner itself raised.
     */
    public boolean isInfrastructureError() {
        return "error".equals(exitCause) || exitCause.startsWith("error:");
    }
}
