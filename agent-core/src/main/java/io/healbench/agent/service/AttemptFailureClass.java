package io.healbench.agent.service;

/** Who is to blame when an attempt did not run to a proper end; infrastructure never counts against the agent. */
public enum AttemptFailureClass {
    NONE("none"),
    INFRASTRUCTURE("infrastructure"),
    AGENT("agent");

    private final String wireName;

    AttemptFailureClass(String wireName) {
        this.wireName = wireName;
    }

    /** The name used in {@code AttemptCompleted.failure_class}. */
    public String wireName() {
        return wireName;
    }
}
