package io.healbench.auth;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.quarkus.grpc.GlobalInterceptor;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Puts a service token for the called service on every call this process makes to an internal service. */
@ApplicationScoped
@GlobalInterceptor
public class ServiceTokenClientInterceptor implements ClientInterceptor {

    /** A token is made anew once less than this is left of it: a call in flight never carries an expiring one. */
    private static final Duration RENEW_BEFORE = Duration.ofSeconds(60);

    private record Minted(String token, Instant renewAt) {}

    private final ServiceTokenKey key;
    private final Map<String, Minted> byAudience = new ConcurrentHashMap<>();

    public ServiceTokenClientInterceptor(ServiceTokenKey key) {
        this.key = key;
    }

    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        String service = method.getServiceName();
        if (!GuardedServices.NAMES.contains(service)) {
            return next.newCall(method, options);
        }
        String token = token(service);
        return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
            @Override
            public void start(Listener<R> listener, Metadata headers) {
                headers.put(GuardedServices.TOKEN, token);
                super.start(listener, headers);
            }
        };
    }

    private String token(String audience) {
        Instant now = Clock.systemUTC().instant();
        return byAudience.compute(audience, (name, minted) -> minted != null && now.isBefore(minted.renewAt()) ? minted
                : new Minted(key.tokens().mint(key.caller(), name), now.plus(ServiceTokens.LIFETIME).minus(RENEW_BEFORE)))
                .token();
    }
}
