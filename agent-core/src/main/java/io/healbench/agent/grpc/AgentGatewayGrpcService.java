package io.healbench.agent.grpc;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.healbench.agent.service.external.ExternalAttempts;
import io.healbench.agent.service.external.ExternalCaller;
import io.healbench.agent.service.external.ExternalCallerAuth;
import io.healbench.agent.service.external.ExternalFailure;
import io.healbench.proto.agent.v1.AgentGatewayService;
import io.healbench.proto.agent.v1.ConnectRequest;
import io.healbench.proto.agent.v1.ConnectResponse;
import io.quarkus.grpc.GrpcService;
import io.quarkus.grpc.RegisterInterceptor;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.mutiny.Multi;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The external agents' stream (agent.proto; docs/agents.md, "The external API"): authenticates the caller when the
 * stream opens, then hands every request to a {@link GatewayStream}, which answers each once, in order.
 */
@GrpcService
@RegisterInterceptor(AgentGatewayGrpcService.AuthorizationHeader.class)
public class AgentGatewayGrpcService implements AgentGatewayService {

    private final ExternalAttempts attempts;
    private final ExternalCallerAuth auth;
    private final SecurityIdentity identity;

    public AgentGatewayGrpcService(ExternalAttempts attempts, ExternalCallerAuth auth, SecurityIdentity identity) {
        this.attempts = attempts;
        this.auth = auth;
        this.identity = identity;
    }

    @Override
    public Multi<ConnectResponse> connect(Multi<ConnectRequest> requests) {
        ExternalCaller caller;
        try {
            caller = auth.authenticate(AuthorizationHeader.KEY.get(), identity);
        } catch (ExternalFailure failure) {
            return Multi.createFrom().failure(AgentGatewayMapper.fatal(failure));
        }
        return Multi.createFrom().emitter(emitter -> new GatewayStream(caller, attempts, emitter).follow(requests));
    }

    /**
     * Keeps the call's {@code authorization} header where the service finds it: standalone mode's local token is read
     * from it (in distributed mode the server's OIDC has already made the identity of it).
     */
    @ApplicationScoped
    public static class AuthorizationHeader implements ServerInterceptor {

        static final Context.Key<String> KEY = Context.key("healbench-authorization");
        private static final Metadata.Key<String> HEADER = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

        @Override
        public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                ServerCallHandler<Q, R> next) {
            return Contexts.interceptCall(Context.current().withValue(KEY, headers.get(HEADER)), call, headers, next);
        }
    }
}
