package io.healbench.agent.service.external;

/**
 * A request of an external agent that failed, with its documented reason (the ErrorInfo reason of the API, domain
 * {@value #DOMAIN}). A recoverable one is answered on its own and the agent goes on; a fatal one ends the agent's
 * stream (agent.proto lists both).
 */
public final class ExternalFailure extends RuntimeException {

    public static final String DOMAIN = "agent.healbench.io";

    /** The gRPC code family of the failure; the adapters map it to their own protocol. */
    public enum Kind {
        INVALID_ARGUMENT, FAILED_PRECONDITION, NOT_FOUND, RESOURCE_EXHAUSTED, ABORTED, UNAUTHENTICATED,
        PERMISSION_DENIED, UNAVAILABLE
    }

    private final Kind kind;
    private final String reason;
    private final boolean fatal;

    private ExternalFailure(Kind kind, String reason, String message, boolean fatal) {
        super(message);
        this.kind = kind;
        this.reason = reason;
        this.fatal = fatal;
    }

    /** The request failed; the agent may go on. */
    public static ExternalFailure recoverable(Kind kind, String reason, String message) {
        return new ExternalFailure(kind, reason, message, false);
    }

    /** The agent's stream (or its hold on the attempt) ends. */
    public static ExternalFailure fatal(Kind kind, String reason, String message) {
        return new ExternalFailure(kind, reason, message, true);
    }

    static ExternalFailure badArgument(String message) {
        return recoverable(Kind.INVALID_ARGUMENT, "ARGUMENT_INVALID", message);
    }

    static ExternalFailure attemptNotFound(String name) {
        return recoverable(Kind.NOT_FOUND, "ATTEMPT_NOT_FOUND", name + " is not an attempt you hold");
    }

    public Kind kind() {
        return kind;
    }

    public String reason() {
        return reason;
    }

    public boolean fatal() {
        return fatal;
    }
}
