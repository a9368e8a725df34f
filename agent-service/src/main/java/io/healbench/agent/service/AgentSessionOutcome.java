package io.healbench.agent.service;

/**
 * How the healed program ended, as the sandbox reports it in FINISHED; {@code traceSimilarity} is its trace
 * similarity with the REFERENCE run (docs/trace-similarity.md).
 */
public record AgentSessionOutcome(
        boolean proceeded, boolean passed, String exitCause, int exitCode, long wallTimeMs, String detail, double traceSimilarity) {

    /** The sandbox itself failed to run the program; not something the agent did. */
    public boolean isInfrastructureError() {
        return "error".equals(exitCause);
    }
}
