package io.healbench.bench.service;

import io.healbench.bench.config.BenchConfig;
import io.quarkus.security.identity.SecurityIdentity;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * Resolves the current caller from the request's security identity: the tenant is the OIDC tenant
 * that verified the token (picked by the token's issuer, one Keycloak realm per tenant), the roles
 * are the realm roles. With {@code healbench.bench.auth.enabled=false} (the standalone CLI, no
 * Keycloak) every caller is tenant {@value #LOCAL_TENANT} with every role.
 * Call it on the request's thread, before going asynchronous.
 */
@ApplicationScoped
public class BenchCallerContext {

    public static final String LOCAL_TENANT = "local";
    /** The attribute quarkus-oidc sets on the identity: the id of the tenant that verified the token. */
    private static final String TENANT_ID_ATTRIBUTE = "tenant-id";
    private static final Set<String> KNOWN_ROLES = Set.of(BenchCaller.VIEWER, BenchCaller.RUNNER, BenchCaller.ADMIN);

    private final SecurityIdentity identity;
    private final BenchConfig config;

    public BenchCallerContext(SecurityIdentity identity, BenchConfig config) {
        this.identity = identity;
        this.config = config;
    }

    /** A caller allowed to read runs: viewer, runner or admin. */
    public BenchCaller reader() {
        BenchCaller caller = current();
        if (!caller.mayRead()) {
            throw new BenchException(BenchException.Kind.PERMISSION_DENIED, "ROLE_REQUIRED",
                    "reading runs needs the role viewer, runner or admin");
        }
        return caller;
    }

    /** A caller allowed to create runs: runner or admin. */
    public BenchCaller runner() {
        BenchCaller caller = current();
        if (!caller.mayRun()) {
            throw new BenchException(BenchException.Kind.PERMISSION_DENIED, "ROLE_REQUIRED",
                    "creating runs needs the role runner or admin");
        }
        return caller;
    }

    /**
     * When the caller's token expires: a stream it opened (WatchRun) ends then. Empty with authentication off (the
     * standalone run has no tokens) or for a principal that carries no expiry.
     */
    public Optional<Instant> tokenExpiry() {
        if (!config.auth().enabled() || !(identity.getPrincipal() instanceof JsonWebToken token) || token.getExpirationTime() <= 0) {
            return Optional.empty();
        }
        return Optional.of(Instant.ofEpochSecond(token.getExpirationTime()));
    }

    private BenchCaller current() {
        if (!config.auth().enabled()) {
            return new BenchCaller(LOCAL_TENANT, LOCAL_TENANT, KNOWN_ROLES);
        }
        if (identity.isAnonymous()) {
            throw new BenchException(BenchException.Kind.UNAUTHENTICATED, "TOKEN_REQUIRED",
                    "a bearer token from a HealBench tenant realm is required");
        }
        String tenant = identity.getAttribute(TENANT_ID_ATTRIBUTE);
        if (tenant == null || tenant.isBlank()) {
            throw new BenchException(BenchException.Kind.UNAUTHENTICATED, "TENANT_NOT_FOUND",
                    "the token was not issued by a HealBench tenant realm");
        }
        Set<String> roles = Set.copyOf(identity.getRoles().stream().filter(KNOWN_ROLES::contains).toList());
        return new BenchCaller(tenant, identity.getPrincipal().getName(), roles);
    }
}
