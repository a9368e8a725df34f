package io.healbench.agent.mcp;

import io.healbench.agent.service.external.ExternalCaller;
import io.healbench.agent.service.external.ExternalCallerAuth;
import io.healbench.agent.service.external.ExternalFailure;
import io.modelcontextprotocol.server.transport.DefaultServerTransportSecurityValidator;
import io.modelcontextprotocol.server.transport.ServerTransportSecurityException;
import io.modelcontextprotocol.server.transport.ServerTransportSecurityValidator;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;

/**
 * The HTTP side of {@code /mcp}, before the MCP layer sees a request: the Origin check (DNS rebinding, with the SDK's
 * validator), then the caller of THIS request ({@link ExternalCallerAuth}: standalone mode's token, or the identity the
 * server's OIDC made of a Keycloak token). A request that fails either is answered here (401, 403 for a missing role or
 * a foreign Origin) with a JSON-RPC error whose {@code data} names the reason; only POST reaches the transport, on a
 * thread that may block, with its caller in the MCP transport context. No MCP session exists (stateless), so no
 * request can act as another caller.
 */
final class McpHttpHandler implements Handler<RoutingContext> {

    /** The JSON-RPC error code of requests refused before the MCP layer (a server-defined code). */
    static final int REFUSED = -32001;

    /** Origins of browsers on this machine; others may be added by configuration. */
    static final List<String> LOCAL_ORIGINS = List.of("http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*",
            "https://127.0.0.1:*", "https://localhost:*", "https://[::1]:*");

    private final ExternalCallerAuth auth;
    private final Function<RoutingContext, Uni<SecurityIdentity>> identities;
    private final ServerTransportSecurityValidator origins;
    private final VertxStatelessTransport transport;
    private final Executor blocking;

    /**
     * @param identities the identity the server's authentication made of a request (null item: none)
     * @param blocking where requests run once authenticated (a tool call blocks until the program answers)
     */
    McpHttpHandler(ExternalCallerAuth auth, Function<RoutingContext, Uni<SecurityIdentity>> identities,
            ServerTransportSecurityValidator origins, VertxStatelessTransport transport, Executor blocking) {
        this.auth = auth;
        this.identities = identities;
        this.origins = origins;
        this.transport = transport;
        this.blocking = blocking;
    }

    static ServerTransportSecurityValidator origins(List<String> extra) {
        List<String> allowed = new ArrayList<>(LOCAL_ORIGINS);
        allowed.addAll(extra);
        return DefaultServerTransportSecurityValidator.builder().allowedOrigins(allowed).build();
    }

    @Override
    public void handle(RoutingContext rc) {
        try {
            origins.validateHeaders(headers(rc));
        } catch (ServerTransportSecurityException e) {
            refuse(rc, e.getStatusCode(), "ORIGIN_REFUSED", String.valueOf(e.getMessage()), true);
            return;
        }
        String authorization = rc.request().getHeader("Authorization");
        Uni<SecurityIdentity> identity;
        try {
            identity = identities.apply(rc);
        } catch (RuntimeException e) {
            refuse(rc, 401, "TOKEN_INVALID", "the token could not be verified", true);
            return;
        }
        identity.subscribe().with(
                known -> authenticated(rc, authorization, known),
                failure -> refuse(rc, 401, "TOKEN_INVALID", "the token could not be verified", true));
    }

    private void authenticated(RoutingContext rc, String authorization, SecurityIdentity identity) {
        ExternalCaller caller;
        try {
            caller = auth.authenticate(authorization, identity);
        } catch (ExternalFailure failure) {
            refuse(rc, status(failure), failure.reason(), String.valueOf(failure.getMessage()), failure.fatal());
            return;
        }
        if (rc.request().method() != HttpMethod.POST) {
            // Stateless: no stream of server messages to GET, no session to DELETE.
            rc.response().putHeader("Allow", "POST");
            refuse(rc, 405, "METHOD_NOT_ALLOWED", "this endpoint takes POST only (stateless streamable HTTP)", false);
            return;
        }
        try {
            blocking.execute(() -> transport.post(rc, McpTools.context(caller)));
        } catch (RejectedExecutionException e) {
            refuse(rc, 503, "UNAVAILABLE", "the server is shutting down", true);
        }
    }

    static int status(ExternalFailure failure) {
        return switch (failure.kind()) {
            case UNAUTHENTICATED -> 401;
            case PERMISSION_DENIED -> 403;
            case INVALID_ARGUMENT -> 400;
            case UNAVAILABLE -> 503;
            default -> 400;
        };
    }

    private void refuse(RoutingContext rc, int status, String reason, String message, boolean fatal) {
        if (status == 401) {
            rc.response().putHeader("WWW-Authenticate", "Bearer realm=\"healbench\"");
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("reason", reason);
        data.put("message", message);
        data.put("fatal", fatal);
        transport.error(rc, status, null, REFUSED, reason + ": " + message, data);
    }

    private static Map<String, List<String>> headers(RoutingContext rc) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (String name : rc.request().headers().names()) {
            headers.put(name, rc.request().headers().getAll(name));
        }
        return headers;
    }
}
