package io.healbench.agent.grpc;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.ErrorInfo;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.healbench.agent.service.AgentSandboxFailure;
import java.util.EnumSet;
import java.util.Set;

/** Turns gRPC failures of sandbox calls into domain {@link AgentSandboxFailure}s. */
final class AgentSandboxCallFailures {

    /** Codes that say "not now" rather than "never": running the attempt again later may succeed. */
    private static final Set<Status.Code> TRANSIENT = EnumSet.of(
            Status.Code.UNAVAILABLE, Status.Code.RESOURCE_EXHAUSTED, Status.Code.DEADLINE_EXCEEDED,
            Status.Code.ABORTED, Status.Code.CANCELLED);

    private AgentSandboxCallFailures() {
    }

    static AgentSandboxFailure of(String call, Throwable failure) {
        if (failure instanceof AgentSandboxFailure known) {
            return known;
        }
        if (failure instanceof io.smallrye.mutiny.TimeoutException) {
            return new AgentSandboxFailure(call + ": no answer in time", true, failure);
        }
        Status status = Status.fromThrowable(failure);
        String reason = failure instanceof StatusRuntimeException sre ? errorInfoReason(sre) : "";
        String message = call + ": " + status.getCode()
                + (reason.isEmpty() ? "" : " " + reason)
                + (status.getDescription() == null ? "" : " " + status.getDescription());
        return new AgentSandboxFailure(message, TRANSIENT.contains(status.getCode()), failure);
    }

    /** The {@code ErrorInfo.reason} of a rich error, or "". */
    static String errorInfoReason(StatusRuntimeException failure) {
        com.google.rpc.Status rich = StatusProto.fromThrowable(failure);
        return rich == null ? "" : errorInfoReason(rich);
    }

    static String errorInfoReason(com.google.rpc.Status status) {
        for (Any detail : status.getDetailsList()) {
            if (detail.is(ErrorInfo.class)) {
                try {
                    return detail.unpack(ErrorInfo.class).getReason();
                } catch (InvalidProtocolBufferException e) {
                    return "";
                }
            }
        }
        return "";
    }
}
