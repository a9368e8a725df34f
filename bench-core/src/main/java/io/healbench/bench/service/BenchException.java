package io.healbench.bench.service;

/**
 * A request bench-service refuses, with the kind of refusal and a stable machine-readable reason.
 * Adapters map {@link Kind} to their own status codes (gRPC status, HTTP status).
 */
public final class BenchException extends RuntimeException {

    public enum Kind { INVALID_ARGUMENT, NOT_FOUND, UNAUTHENTICATED, PERMISSION_DENIED, FAILED_PRECONDITION, ABORTED }

    private final Kind kind;
    private final String reason;

    public BenchException(Kind kind, String reason, String message) {
        super(message);
        this.kind = kind;
        this.reason = reason;
    }

    public static BenchException invalidArgument(String reason, String message) {
        return new BenchException(Kind.INVALID_ARGUMENT, reason, message);
    }

    /** Also used for another tenant's resources, so their existence is not revealed. */
    public static BenchException runNotFound(String runId) {
        return new BenchException(Kind.NOT_FOUND, "RUN_NOT_FOUND", "run '" + runId + "' not found");
    }

    /** A run that must have ended (or must still be going) for the call is not. */
    public static BenchException runState(String reason, String message) {
        return new BenchException(Kind.FAILED_PRECONDITION, reason, message);
    }

    public Kind kind() {
        return kind;
    }

    /** UPPER_SNAKE reason, carried as the gRPC ErrorInfo reason. */
    public String reason() {
        return reason;
    }
}
