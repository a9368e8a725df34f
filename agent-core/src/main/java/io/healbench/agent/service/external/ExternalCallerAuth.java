package io.healbench.agent.service.external;

import io.quarkus.security.identity.SecurityIdentity;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Who is calling the external API. Standalone mode ({@code healbench.agent.gateway.local-token} set): the bearer token
 * the CLI printed, and the caller is tenant {@value #LOCAL_TENANT}. Distributed mode: a Keycloak token of a tenant
 * realm with the {@value #AGENT_ROLE} role; the tenant is the OIDC tenant that verified it (one realm per tenant).
 */
@ApplicationScoped
public class ExternalCallerAuth {

    public static final String LOCAL_TENANT = "local";
    public static final String AGENT_ROLE = "agent";
    private static final String TENANT_ID_ATTRIBUTE = "tenant-id";
    private static final String BEARER = "Bearer ";

    private final ExternalSettings settings;

    public ExternalCallerAuth(ExternalSettings settings) {
        this.settings = settings;
    }

    /** Whether an {@code authorization} header presents {@code token} as its bearer token (compared in constant time). */
    public static boolean bearerMatches(String authorization, String token) {
        if (authorization == null || !authorization.startsWith(BEARER)) {
            return false;
        }
        return MessageDigest.isEqual(authorization.substring(BEARER.length()).getBytes(StandardCharsets.UTF_8),
                token.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The caller of a request with this {@code authorization} header (null when absent) and the identity the server's
     * authentication made of it. Call it on the request's thread.
     */
    public ExternalCaller authenticate(String authorization, SecurityIdentity identity) {
        if (settings.localToken().isPresent()) {
            if (authorization == null || !authorization.startsWith(BEARER)) {
                throw ExternalFailure.fatal(ExternalFailure.Kind.UNAUTHENTICATED, "TOKEN_REQUIRED",
                        "a bearer token is required: the one `healbench serve` printed");
            }
            if (!bearerMatches(authorization, settings.localToken().get())) {
                throw ExternalFailure.fatal(ExternalFailure.Kind.UNAUTHENTICATED, "TOKEN_INVALID", "the token is not this server's");
            }
            return new ExternalCaller(LOCAL_TENANT, LOCAL_TENANT);
        }
        if (identity == null || identity.isAnonymous()) {
            throw ExternalFailure.fatal(ExternalFailure.Kind.UNAUTHENTICATED, "TOKEN_REQUIRED",
                    "a bearer token from a HealBench tenant realm is required");
        }
        String tenant = identity.getAttribute(TENANT_ID_ATTRIBUTE);
        if (tenant == null || tenant.isBlank()) {
            throw ExternalFailure.fatal(ExternalFailure.Kind.UNAUTHENTICATED, "TOKEN_INVALID",
                    "the token was not issued by a HealBench tenant realm");
        }
        if (!identity.hasRole(AGENT_ROLE)) {
            throw ExternalFailure.fatal(ExternalFailure.Kind.PERMISSION_DENIED, "ROLE_REQUIRED",
                    "claiming and acting on attempts needs the role " + AGENT_ROLE);
        }
        return new ExternalCaller(tenant, identity.getPrincipal().getName());
    }
}
