package io.healbench.auth;

import com.google.protobuf.Any;
import com.google.rpc.Code;
import com.google.rpc.ErrorInfo;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.quarkus.grpc.GlobalInterceptor;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Lets a call to an internal service through only with a valid service token for that very service; anything else is
 * UNAUTHENTICATED with an {@code ErrorInfo} reason ({@code SERVICE_TOKEN_REQUIRED}, {@code _INVALID}, {@code _EXPIRED},
 * {@code _AUDIENCE}; domain {@value #DOMAIN}), before a byte of the request is read.
 */
@ApplicationScoped
@GlobalInterceptor
public class ServiceTokenServerInterceptor implements ServerInterceptor {

    static final String DOMAIN = "auth.healbench.io";
    private static final Logger LOG = Logger.getLogger(ServiceTokenServerInterceptor.class);

    private final ServiceTokenKey key;

    public ServiceTokenServerInterceptor(ServiceTokenKey key) {
        this.key = key;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        String service = call.getMethodDescriptor().getServiceName();
        if (!GuardedServices.NAMES.contains(service)) {
            return next.startCall(call, headers);
        }
        try {
            key.tokens().verify(headers.get(GuardedServices.TOKEN), service);
            return next.startCall(call, headers);
        } catch (ServiceTokens.Refused refused) {
            LOG.warnf("refused a call of %s: %s", call.getMethodDescriptor().getFullMethodName(), refused.getMessage());
            StatusRuntimeException error = StatusProto.toStatusRuntimeException(com.google.rpc.Status.newBuilder()
                    .setCode(Code.UNAUTHENTICATED_VALUE).setMessage(refused.getMessage())
                    .addDetails(Any.pack(ErrorInfo.newBuilder().setReason(refused.reason()).setDomain(DOMAIN).build())).build());
            call.close(error.getStatus(), error.getTrailers() == null ? new Metadata() : error.getTrailers());
            return new ServerCall.Listener<>() {};
        }
    }
}
