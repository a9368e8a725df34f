package io.healbench.bench.grpc;

import com.google.protobuf.Any;
import com.google.rpc.Code;
import com.google.rpc.ErrorInfo;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.healbench.bench.service.BenchException;
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
        return StatusProto.toStatusRuntimeException(com.google.rpc.Status.newBuilder()
                .setCode(code.getNumber())
                .setMessage(message)
                .addDetails(Any.pack(ErrorInfo.newBuilder().setReason(reason).setDomain(DOMAIN).build()))
                .build());
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
