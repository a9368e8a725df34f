package io.healbench.sandbox.service;

/**
 * A refused or failed sandbox operation: what kind of failure it is, a stable machine-readable reason
 * (e.g. {@code SESSION_NOT_FOUND}) and a message for people. The gRPC adapter turns it into a
 * {@code google.rpc.Status} with an {@code ErrorInfo}.
 */
public class SandboxException extends RuntimeException {

    /** The failure classes the sandbox distinguishes; they map one-to-one onto gRPC codes. */
    public enum Kind {
        INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION, RESOURCE_EXHAUSTED, UNIMPLEMENTED, DEADLINE_EXCEEDED,
        UNAVAILABLE, INTERNAL
    }

    private final Kind kind;
    private final String reason;

    public SandboxException(Kind kind, String reason, String message) {
        super(message);
        this.kind = kind;
        this.reason = reason;
    }

    public SandboxException(Kind kind, String reason, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
        this.reason = reason;
    }

    public Kind kind() {
        return kind;
    }

    public String reason() {
        return reason;
    }
}
