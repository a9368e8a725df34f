package io.healbench.proto.rpc;

import com.google.protobuf.Any;
import com.google.rpc.ErrorInfo;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.Status.Code;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.util.Map;

/**
 * The one way every service states an error (AIP-193): a {@code google.rpc.Status} with the canonical code, a message
 * for people, and one {@code ErrorInfo} whose reason (UPPER_SNAKE_CASE, documented on the RPC) and domain (the
 * service's, e.g. {@code sandbox.healbench.io}) let a program tell the cases apart without reading the message.
 */
public final class RichStatus {

    private RichStatus() {}

    public static com.google.rpc.Status status(Code code, String domain, String reason, String message) {
        return status(code, domain, reason, message, Map.of());
    }

    /** With {@code metadata}: the ErrorInfo's facts about this case, e.g. a size and its limit. */
    public static com.google.rpc.Status status(Code code, String domain, String reason, String message, Map<String, String> metadata) {
        return com.google.rpc.Status.newBuilder()
                .setCode(code.value())
                .setMessage(message == null ? "" : message)
                .addDetails(Any.pack(ErrorInfo.newBuilder().setReason(reason).setDomain(domain).putAllMetadata(metadata).build()))
                .build();
    }

    public static StatusRuntimeException exception(Code code, String domain, String reason, String message) {
        return StatusProto.toStatusRuntimeException(status(code, domain, reason, message));
    }

    public static StatusRuntimeException exception(Code code, String domain, String reason, String message,
            Map<String, String> metadata) {
        return StatusProto.toStatusRuntimeException(status(code, domain, reason, message, metadata));
    }

    /** Ends a call an interceptor refuses with {@code error}, details included; the call's messages are then ignored. */
    public static <Q> ServerCall.Listener<Q> refuse(ServerCall<Q, ?> call, StatusRuntimeException error) {
        call.close(error.getStatus(), error.getTrailers() == null ? new Metadata() : error.getTrailers());
        return new ServerCall.Listener<>() {};
    }
}
