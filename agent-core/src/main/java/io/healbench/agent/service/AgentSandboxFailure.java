package io.healbench.agent.service;

/**
 * The sandbox could not serve a request. {@code transient} failures (unavailable, overloaded,
 * timed out) may succeed when the attempt is tried again later; the others will not.
 */
public class AgentSandboxFailure extends RuntimeException {

    private final boolean transientFailure;

    public AgentSandboxFailure(String message, boolean transientFailure, Throwable cause) {
        super(message, cause);
        this.transientFailure = transientFailure;
    }

    public boolean isTransient() {
        return transientFailure;
    }
}
