package io.healbench.agent.service;

/** How the healed program ended, as the sandbox reports it in FINISHED. */
public record AgentSessionOutcome(
        boolean proceeded, boolean passed, String exitCause, int exitCode, long wallTimeMs, String detail) {

    /** The sandbox itself failed to run the program; not something the agent did. */
    public boolean isInfrastructureError() {
        return "error".equals(exitCause);
    }
}
