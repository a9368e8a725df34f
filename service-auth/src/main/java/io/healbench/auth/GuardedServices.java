package io.healbench.auth;

import io.grpc.Metadata;
import java.util.Set;

/**
 * Which gRPC services only HealBench's own services may call, and the header their token travels in. BenchService and
 * AgentGatewayService are not among them: people, tenants and their agents call those with their Keycloak tokens (and health
 * checks stay open everywhere).
 */
final class GuardedServices {

    /** The full names of the internal services: each is also the audience of the tokens for it. */
    static final Set<String> NAMES = Set.of("healbench.sandbox.v1.SandboxService", "healbench.guard.v1.GuardService",
            "healbench.bench.v1.AttemptClaimsService");

    /**
     * A header of its own, not {@code authorization}: in the standalone JVM the bench service's OIDC reads that one, and
     * must never mistake a service token for a person's.
     */
    static final Metadata.Key<String> TOKEN = Metadata.Key.of("x-healbench-service-token", Metadata.ASCII_STRING_MARSHALLER);

    private GuardedServices() {}
}
