package io.healbench.agent.service;

/** How the paused program continues after an applied heal. */
public enum HealResume {
    /** Continue after the failing statement. */
    SKIP,
    /** Run the failing statement again. */
    RETRY,
    /** Return the value the heal assigned to {@code _return_} from the crashing function. */
    RETURN
}
