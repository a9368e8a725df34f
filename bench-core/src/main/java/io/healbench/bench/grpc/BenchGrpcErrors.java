package io.healbench.bench.grpc;

import io.grpc.Status.Code;
import com.google.rpc.ErrorInfo;
import io.grpc.StatusRuntimeException;
import io.healbench.bench.service.BenchException;
import io.healbench.proto.rpc.RichStatus;
import org.jboss.logging.Logger;

/** Turns failures into gRPC statuses: a {@code google.rpc.Status} with an ErrorInfo reason. */
final class BenchGrpcErrors {

    static final String DOMAIN = "bench.healbench.io";
    private static final Logger LOG = Logger.getLogger(BenchGrpcErrors.class);

    private BenchGrpcErrors() {
    }

    static Throwable toStatus(Throwable failure) {
        if (failure instanceof StatusRuntimeException) {
            return failure;
        }
        if (failure instanceof BenchException e) {
            return status(code(e.kind()), e.reason(), e.getMessage());
        }
        LOG.error("bench-service call failed", failure);
        return status(Code.INTERNAL, "INTERNAL", "internal error: " + failure.getClass().getSimpleName());
    }

    private static StatusRuntimeException status(Code code, String reason, String message) {
        return RichStatus.exception(code, DOMAIN, reason, message);
    }

    private static Code code(BenchException.Kind kind) {
        return switch (kind) {
            case INVALID_ARGUMENT -> Code.INVALID_ARGUMENT;
            case NOT_FOUND -> Code.NOT_FOUND;
            case UNAUTHENTICATED -> Code.UNAUTHENTICATED;
            case PERMISSION_DENIED -> Code.PERMISSION_DENIED;
            case FAILED_PRECONDITION -> Code.FAILED_PRECONDITION;
            case ABORTED -> Code.ABORTED;
        };
    }
}
