package io.healbench.sandbox.grpc;

import io.grpc.Status.Code;
import com.google.rpc.ErrorInfo;
import com.google.rpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.healbench.proto.rpc.RichStatus;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.model.HealOutcome;
import org.jboss.logging.Logger;

/** Maps sandbox failures onto {@code google.rpc.Status} with an {@code ErrorInfo} reason. */
final class SandboxErrors {

    static final String DOMAIN = "sandbox.healbench.io";
    private static final Logger LOG = Logger.getLogger(SandboxErrors.class);

    private SandboxErrors() {}

    static Status status(Code code, String reason, String message) {
        return RichStatus.status(code, DOMAIN, reason, message);
    }

    static Status status(HealOutcome.HealError error) {
        return status(error.rejected() ? Code.INVALID_ARGUMENT : Code.ABORTED, error.reason(), error.message());
    }

    static StatusRuntimeException toGrpc(Throwable failure) {
        if (failure instanceof StatusRuntimeException grpc) {
            return grpc;
        }
        if (failure instanceof SandboxException e) {
            return StatusProto.toStatusRuntimeException(status(code(e.kind()), e.reason(), e.getMessage()));
        }
        LOG.error("unexpected sandbox failure", failure);
        return StatusProto.toStatusRuntimeException(status(Code.INTERNAL, "INTERNAL", "internal error: " + failure));
    }

    private static Code code(SandboxException.Kind kind) {
        return switch (kind) {
            case INVALID_ARGUMENT -> Code.INVALID_ARGUMENT;
            case NOT_FOUND -> Code.NOT_FOUND;
            case FAILED_PRECONDITION -> Code.FAILED_PRECONDITION;
            case RESOURCE_EXHAUSTED -> Code.RESOURCE_EXHAUSTED;
            case UNIMPLEMENTED -> Code.UNIMPLEMENTED;
            case DEADLINE_EXCEEDED -> Code.DEADLINE_EXCEEDED;
            case UNAVAILABLE -> Code.UNAVAILABLE;
            case INTERNAL -> Code.INTERNAL;
        };
    }
}
