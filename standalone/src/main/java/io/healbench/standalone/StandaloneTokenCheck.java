package io.healbench.standalone;

import com.google.rpc.Code;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.healbench.agent.service.external.ExternalCallerAuth;
import io.healbench.proto.rpc.RichStatus;
import io.quarkus.grpc.GlobalInterceptor;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Standalone mode has one key, the local token the CLI prints: bench-service's API (gRPC and REST) takes only callers
 * that present it, as the external agents' gateway does. Without it anyone on the machine could create and read runs
 * on a served platform ({@code healbench serve}). Distributed services authenticate with Keycloak instead; this class
 * is part of the standalone app only.
 */
@ApplicationScoped
@GlobalInterceptor
public class StandaloneTokenCheck implements ServerInterceptor {

    private static final String BENCH_SERVICE = "healbench.bench.v1.BenchService";
    private static final String REST_PREFIX = "/api/";
    private static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

    private final Optional<String> token;

    public StandaloneTokenCheck(@ConfigProperty(name = "healbench.agent.gateway.local-token") Optional<String> token) {
        this.token = token;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        if (!call.getMethodDescriptor().getServiceName().equals(BENCH_SERVICE) || presented(headers.get(AUTHORIZATION))) {
            return next.startCall(call, headers);
        }
        return RichStatus.refuse(call, RichStatus.exception(Status.Code.UNAUTHENTICATED, "bench.healbench.io", "TOKEN_REQUIRED",
                "this platform's API needs the token it printed (--token)"));
    }

    /** Ahead of every HTTP route: the REST API under {@value #REST_PREFIX} (health checks and /mcp keep their own rules). */
    void filterRest(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE).handler(this::rest);
    }

    private void rest(RoutingContext request) {
        if (!request.normalizedPath().startsWith(REST_PREFIX) || presented(request.request().getHeader("Authorization"))) {
            request.next();
            return;
        }
        request.response().setStatusCode(401).putHeader("WWW-Authenticate", "Bearer")
                .putHeader("Content-Type", "application/json")
                .end("{\"code\":\"UNAUTHENTICATED\",\"reason\":\"TOKEN_REQUIRED\",\"message\":\"this platform's API needs the token it printed\"}");
    }

    private boolean presented(String authorization) {
        return token.isEmpty() || ExternalCallerAuth.bearerMatches(authorization, token.get());
    }
}
