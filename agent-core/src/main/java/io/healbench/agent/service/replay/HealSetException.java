package io.healbench.agent.service.replay;

/** A heal set that cannot be used: missing, unreadable or malformed. The message names the file and, if any, the field. */
public class HealSetException extends RuntimeException {

    public HealSetException(String message) {
        super(message);
    }

    public HealSetException(String message, Throwable cause) {
        super(message, cause);
    }
}
