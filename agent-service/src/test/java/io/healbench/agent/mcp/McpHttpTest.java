package io.healbench.agent.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.healbench.agent.service.external.ExternalCaller;
import io.healbench.agent.service.external.ExternalCallerAuth;
import io.healbench.agent.service.external.ExternalSettings;
import io.modelcontextprotocol.json.schema.jackson2.DefaultJsonSchemaValidator;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code /mcp} over real HTTP (Vert.x, no Quarkus): authentication per request, then the SDK's MCP server. */
class McpHttpTest {

    private static final String TOKEN = "local-secret";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
            + "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"0\"}}}";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ExecutorService requests = Executors.newCachedThreadPool();
    private Vertx vertx;
    private String url;
    private McpToolSchemasTest.FakeDomain domain;

    @AfterEach
    void stop() throws Exception {
        requests.shutdownNow();
        if (vertx != null) {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void standaloneTokenIsRequiredOnEveryRequest() throws Exception {
        start(Optional.of(TOKEN), rc -> Uni.createFrom().nullItem());

        HttpResponse<String> none = post(null, INITIALIZE, Map.of());
        assertEquals(401, none.statusCode());
        assertTrue(none.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Bearer"));
        assertEquals("TOKEN_REQUIRED", reason(none));

        HttpResponse<String> wrong = post("Bearer nope", INITIALIZE, Map.of());
        assertEquals(401, wrong.statusCode());
        assertEquals("TOKEN_INVALID", reason(wrong));

        HttpResponse<String> get = http.send(HttpRequest.newBuilder(URI.create(url)).GET()
                .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(405, get.statusCode());
        assertEquals("POST", get.headers().firstValue("Allow").orElse(""));
        HttpResponse<String> anonymousGet = http.send(HttpRequest.newBuilder(URI.create(url)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(401, anonymousGet.statusCode());
    }

    @Test
    void anAuthenticatedSessionSpeaksMcp() throws Exception {
        start(Optional.of(TOKEN), rc -> Uni.createFrom().nullItem());
        String bearer = "Bearer " + TOKEN;

        HttpResponse<String> init = post(bearer, INITIALIZE, Map.of());
        assertEquals(200, init.statusCode(), init.body());
        assertTrue(init.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
        Map<String, Object> initialized = result(init);
        assertEquals(Map.of("name", "healbench", "version", "1"), initialized.get("serverInfo"));
        assertEquals("2025-11-25", initialized.get("protocolVersion"));

        HttpResponse<String> notified = post(bearer, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", Map.of());
        assertEquals(202, notified.statusCode());

        HttpResponse<String> listed = post(bearer, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}", Map.of());
        assertEquals(9, ((List<?>) result(listed).get("tools")).size());

        // A method the server does not have (as the Python client's server/discover probe) is a JSON-RPC error.
        HttpResponse<String> discover = post(bearer, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"server/discover\"}", Map.of());
        assertEquals(200, discover.statusCode());
        assertEquals(-32601, ((Map<?, ?>) body(discover).get("error")).get("code"));

        HttpResponse<String> called = post(bearer, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":"
                + "{\"name\":\"read_file\",\"arguments\":{\"attempt\":\"runs/r1/attempts/a1\",\"path\":\"app.py\",\"start\":3}}}",
                Map.of());
        Map<String, Object> result = result(called);
        assertEquals(false, result.get("isError"));
        assertEquals(new ExternalCaller(ExternalCallerAuth.LOCAL_TENANT, ExternalCallerAuth.LOCAL_TENANT), domain.acted.get(0));
        assertEquals(Map.of("path", "app.py", "start", 3), domain.acted.get(3));

        HttpResponse<String> garbage = post(bearer, "{not json", Map.of());
        assertEquals(400, garbage.statusCode());
        assertEquals(-32700, ((Map<?, ?>) body(garbage).get("error")).get("code"));
    }

    @Test
    void foreignOriginsAreRefused() throws Exception {
        start(Optional.of(TOKEN), rc -> Uni.createFrom().nullItem());
        String bearer = "Bearer " + TOKEN;
        HttpResponse<String> evil = post(bearer, INITIALIZE, Map.of("Origin", "http://evil.example"));
        assertEquals(403, evil.statusCode());
        assertEquals("ORIGIN_REFUSED", reason(evil));
        assertEquals(200, post(bearer, INITIALIZE, Map.of("Origin", "http://127.0.0.1:8103")).statusCode());
        assertEquals(200, post(bearer, INITIALIZE, Map.of("Origin", "https://agents.example.org")).statusCode());
    }

    /** Distributed mode: the server's OIDC made the identity; each request's own caller reaches the tools. */
    @Test
    void eachRequestActsAsItsOwnCaller() throws Exception {
        start(Optional.empty(), rc -> {
            String header = rc.request().getHeader("Authorization");
            if (header == null) {
                return Uni.createFrom().nullItem();
            }
            String[] who = header.substring("Bearer ".length()).split("-");
            QuarkusSecurityIdentity.Builder identity = QuarkusSecurityIdentity.builder()
                    .setPrincipal(new QuarkusPrincipal(who[1])).addAttribute("tenant-id", who[0]);
            if (who.length > 2) {
                identity.addRole(who[2]);
            }
            return Uni.createFrom().item(identity.build());
        });
        String call = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"get_crash\","
                + "\"arguments\":{\"attempt\":\"runs/r1/attempts/a1\"}}}";

        assertEquals(401, post(null, call, Map.of()).statusCode());
        HttpResponse<String> noRole = post("Bearer acme-bob", call, Map.of());
        assertEquals(403, noRole.statusCode());
        assertEquals("ROLE_REQUIRED", reason(noRole));

        assertEquals(200, post("Bearer acme-alice-agent", call, Map.of()).statusCode());
        assertEquals(200, post("Bearer globex-carol-agent", call, Map.of()).statusCode());
        assertEquals(new ExternalCaller("acme", "alice"), domain.acted.get(0));
        assertEquals(new ExternalCaller("globex", "carol"), domain.acted.get(4));
    }

    // ---- helpers -----------------------------------------------------------------------------------------------------

    private void start(Optional<String> localToken, Function<RoutingContext, Uni<SecurityIdentity>> identities)
            throws Exception {
        domain = new McpToolSchemasTest.FakeDomain();
        VertxStatelessTransport transport = new VertxStatelessTransport(McpToolSchemasTest.JSON);
        McpTools.server(transport, McpToolSchemasTest.JSON, new DefaultJsonSchemaValidator(), domain);
        ExternalCallerAuth auth = new ExternalCallerAuth(settings(localToken));
        McpHttpHandler handler = new McpHttpHandler(auth, identities,
                McpHttpHandler.origins(List.of("https://agents.example.org")), transport, requests);
        vertx = Vertx.vertx();
        Router router = Router.router(vertx);
        McpEndpoint.mount(router, handler);
        HttpServer server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1")
                .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        url = "http://127.0.0.1:" + server.actualPort() + McpEndpoint.PATH;
    }

    private static ExternalSettings settings(Optional<String> localToken) {
        return new ExternalSettings() {
            @Override
            public Duration lease() {
                return Duration.ofSeconds(30);
            }

            @Override
            public int maxRequeues() {
                return 2;
            }

            @Override
            public Optional<String> localToken() {
                return localToken;
            }
        };
    }

    private HttpResponse<String> post(String authorization, String body, Map<String, String> headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        headers.forEach(request::header);
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> body(HttpResponse<String> response) throws Exception {
        return JSON.readValue(response.body(), Map.class);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> result(HttpResponse<String> response) throws Exception {
        assertEquals(200, response.statusCode(), response.body());
        Map<String, Object> body = body(response);
        assertEquals(null, body.get("error"), response.body());
        return (Map<String, Object>) body.get("result");
    }

    @SuppressWarnings("unchecked")
    private static String reason(HttpResponse<String> response) throws Exception {
        Map<String, Object> error = (Map<String, Object>) body(response).get("error");
        assertEquals(McpHttpHandler.REFUSED, error.get("code"));
        return (String) ((Map<String, Object>) error.get("data")).get("reason");
    }
}
