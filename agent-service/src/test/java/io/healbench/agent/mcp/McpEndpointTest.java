package io.healbench.agent.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.healbench.testsupport.RabbitMqTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code /mcp} in the running service, as the standalone app serves it (its local token, no OIDC tenant): the route is
 * there, every request is authenticated, and tool calls reach the real {@code ExternalAttempts}.
 */
@QuarkusTest
@TestProfile(McpEndpointTest.LocalToken.class)
@WithTestResource(RabbitMqTestResource.class)
class McpEndpointTest {

    static final String TOKEN = "mcp-endpoint-test-token";
    private static final ObjectMapper JSON = new ObjectMapper();

    public static class LocalToken implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "healbench.agent.gateway.local-token", TOKEN,
                    "quarkus.oidc.acme.tenant-enabled", "false",
                    "quarkus.oidc.globex.tenant-enabled", "false");
        }
    }

    @TestHTTPResource("/mcp")
    URI mcp;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void requestsWithoutTheTokenAreRefusedBeforeMcp() throws Exception {
        HttpResponse<String> none = post(null, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
        assertEquals(401, none.statusCode(), none.body());
        assertEquals("TOKEN_REQUIRED", data(none).get("reason"));
        HttpResponse<String> wrong = post("Bearer nope", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
        assertEquals(401, wrong.statusCode(), wrong.body());
        assertEquals("TOKEN_INVALID", data(wrong).get("reason"));
    }

    @Test
    void toolCallsReachTheDomain() throws Exception {
        String bearer = "Bearer " + TOKEN;
        HttpResponse<String> init = post(bearer, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                + "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"0\"}}}");
        assertEquals(200, init.statusCode(), init.body());
        assertEquals(Map.of("name", "healbench", "version", "1"), result(init).get("serverInfo"));

        HttpResponse<String> listed = post(bearer, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
        assertEquals(9, ((List<?>) result(listed).get("tools")).size());

        // Checked by ExternalAttempts itself, before it asks bench-service anything.
        Map<String, Object> badTarget = structured(post(bearer, call(3, "claim", "{\"run\":\"not a run\"}")));
        assertEquals("ARGUMENT_INVALID", badTarget.get("reason"));
        Map<String, Object> notHeld = structured(post(bearer, call(4, "get_crash", "{\"attempt\":\"runs/r1/attempts/a1\"}")));
        assertEquals("ATTEMPT_NOT_FOUND", notHeld.get("reason"));
        assertEquals(false, notHeld.get("fatal"));
        Map<String, Object> noAttempt = structured(post(bearer, call(5, "probe", "{\"code\":\"1\"}")));
        assertEquals("ARGUMENT_INVALID", noAttempt.get("reason"));
    }

    private static String call(int id, String tool, String arguments) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
                + "\",\"arguments\":" + arguments + "}}";
    }

    private HttpResponse<String> post(String authorization, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(mcp).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> result(HttpResponse<String> response) throws Exception {
        assertEquals(200, response.statusCode(), response.body());
        Map<String, Object> body = JSON.readValue(response.body(), Map.class);
        assertEquals(null, body.get("error"), response.body());
        return (Map<String, Object>) body.get("result");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> structured(HttpResponse<String> response) throws Exception {
        Map<String, Object> result = result(response);
        assertEquals(true, result.get("isError"), response.body());
        return (Map<String, Object>) result.get("structuredContent");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> data(HttpResponse<String> response) throws Exception {
        Map<String, Object> error = (Map<String, Object>) JSON.readValue(response.body(), Map.class).get("error");
        return (Map<String, Object>) error.get("data");
    }
}
