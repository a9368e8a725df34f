package io.healbench.auth;

import com.google.rpc.Code;
import com.google.rpc.ErrorInfo;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.healbench.proto.rpc.RichStatus;
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
            return RichStatus.refuse(call, RichStatus.exception(Status.Code.UNAUTHENTICATED, DOMAIN, refused.reason(), refused.getMessage()));
        }
    }
}
