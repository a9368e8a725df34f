package io.healbench.agent.llmstub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The stub's HTTP behaviour seen with a plain client: auth, bad requests, unknown paths, error shapes, latency, concurrency. */
class LlmStubHttpTest {

    private static final String SCRIPT = """
            rules:
              - when: {contains: "fail please"}
                reply: {status: 503}
            default:
              text: "ok"
            """;
    private static final String OPENAI_BODY = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    private static final String ANTHROPIC_BODY = "{\"model\":\"m\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    private static final String GEMINI_BODY = "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]}]}";
    private static final String SECRET = "sk-very-secret-4711";

    private final HttpClient client = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();

    @TempDir
    Path dir;

    private LlmStubServer server;

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void requiresEachProvidersAuthHeader() throws Exception {
        start(null);

        HttpResponse<String> openAi = post("/v1/chat/completions", OPENAI_BODY);
        HttpResponse<String> anthropic = post("/v1/messages", ANTHROPIC_BODY, "anthropic-version", "2023-06-01");
        HttpResponse<String> gemini = post("/v1beta/models/g:generateContent", GEMINI_BODY);

        assertEquals(401, openAi.statusCode());
        assertEquals("invalid_api_key", json.readTree(openAi.body()).path("error").path("code").asText());
        assertEquals(401, anthropic.statusCode());
        assertEquals("authentication_error", json.readTree(anthropic.body()).path("error").path("type").asText());
        assertEquals(401, gemini.statusCode());
        assertEquals("UNAUTHENTICATED", json.readTree(gemini.body()).path("error").path("status").asText());
        assertEquals(401, post("/v1/chat/completions", OPENAI_BODY, "Authorization", "Bearer  ").statusCode());
    }

    @Test
    void acceptsEachProvidersAuthHeaderAndPathForms() throws Exception {
        start(null);

        assertEquals(200, post("/v1/chat/completions", OPENAI_BODY, "Authorization", "Bearer " + SECRET).statusCode());
        assertEquals(200, post("/chat/completions", OPENAI_BODY, "Authorization", "Bearer " + SECRET).statusCode());
        assertEquals(200, post("/v1/messages", ANTHROPIC_BODY, "x-api-key", SECRET).statusCode());
        assertEquals(200, post("/messages", ANTHROPIC_BODY, "x-api-key", SECRET).statusCode());
        assertEquals(200, post("/v1beta/models/g:generateContent", GEMINI_BODY, "x-goog-api-key", SECRET).statusCode());
        HttpResponse<String> byQuery = post("/v1beta/models/g:generateContent?key=" + SECRET, GEMINI_BODY);
        assertEquals(200, byQuery.statusCode());
        assertEquals("ok", json.readTree(byQuery.body()).path("candidates").path(0).path("content").path("parts").path(0)
                .path("text").asText());
    }

    @Test
    void neverKeepsOrEchoesTheKey() throws Exception {
        start(null);

        List<String> answers = List.of(
                post("/v1/chat/completions", OPENAI_BODY, "Authorization", "Bearer " + SECRET).body(),
                post("/v1/chat/completions", "{broken", "Authorization", "Bearer " + SECRET).body(),
                post("/v1/nowhere", OPENAI_BODY, "Authorization", "Bearer " + SECRET).body(),
                post("/v1beta/models/g:generateContent?key=" + SECRET, "{}").body(),
                post("/v1beta/nowhere?key=" + SECRET, GEMINI_BODY).body());

        for (String answer : answers) {
            assertFalse(answer.contains(SECRET), answer);
        }
        assertEquals(5, server.requestBodies().size());
        server.requestBodies().forEach(body -> assertFalse(body.contains(SECRET), body));
    }

    @Test
    void malformedBodiesAre400InTheProvidersShape() throws Exception {
        start(null);

        HttpResponse<String> openAi = post("/v1/chat/completions", "{\"model\": ", "Authorization", "Bearer k");
        HttpResponse<String> anthropic = post("/v1/messages", "not json", "x-api-key", "k");
        HttpResponse<String> noMessages = post("/v1/chat/completions", "{\"model\":\"m\"}", "Authorization", "Bearer k");
        HttpResponse<String> noMaxTokens = post("/v1/messages", OPENAI_BODY, "x-api-key", "k");
        HttpResponse<String> streaming = post("/v1/chat/completions",
                "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", "Authorization", "Bearer k");

        assertEquals(400, openAi.statusCode());
        JsonNode openAiError = json.readTree(openAi.body()).path("error");
        assertEquals("invalid_request_error", openAiError.path("type").asText());
        assertTrue(openAiError.path("message").asText().contains("not valid JSON"), openAi.body());
        assertEquals(400, anthropic.statusCode());
        assertEquals("error", json.readTree(anthropic.body()).path("type").asText());
        assertEquals("invalid_request_error", json.readTree(anthropic.body()).path("error").path("type").asText());
        assertEquals(400, noMessages.statusCode());
        assertTrue(noMessages.body().contains("messages"), noMessages.body());
        assertEquals(400, noMaxTokens.statusCode());
        assertTrue(noMaxTokens.body().contains("max_tokens"), noMaxTokens.body());
        assertEquals(400, streaming.statusCode());
        assertTrue(streaming.body().contains("non-streaming"), streaming.body());
    }

    @Test
    void unknownPathsAre404AndOtherMethods405() throws Exception {
        start(null);

        HttpResponse<String> openAi = post("/v1/embeddings", OPENAI_BODY, "Authorization", "Bearer k");
        HttpResponse<String> anthropic = post("/v1/complete", ANTHROPIC_BODY, "x-api-key", "k");
        HttpResponse<String> gemini = post("/v1beta/models/g:streamGenerateContent", GEMINI_BODY, "x-goog-api-key", "k");
        HttpResponse<String> get = client.send(HttpRequest.newBuilder(uri("/v1/chat/completions"))
                .header("Authorization", "Bearer k").GET().build(), HttpResponse.BodyHandlers.ofString());

        assertEquals(404, openAi.statusCode());
        assertEquals("unknown_url", json.readTree(openAi.body()).path("error").path("code").asText());
        assertEquals(404, anthropic.statusCode());
        assertEquals("not_found_error", json.readTree(anthropic.body()).path("error").path("type").asText());
        assertEquals(404, gemini.statusCode());
        assertEquals("NOT_FOUND", json.readTree(gemini.body()).path("error").path("status").asText());
        assertEquals(405, get.statusCode());
        assertEquals(4, server.requestsServed());
    }

    @Test
    void scriptedStatusIsAnErrorInTheProvidersShape() throws Exception {
        start(null);

        HttpResponse<String> response = post("/v1/messages",
                "{\"model\":\"m\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"fail please\"}]}", "x-api-key", "k");

        assertEquals(503, response.statusCode());
        assertEquals("api_error", json.readTree(response.body()).path("error").path("type").asText());
    }

    @Test
    void latencyDoesNotSerializeConcurrentRequests() throws Exception {
        start(Duration.ofMillis(300));
        post("/v1/chat/completions", OPENAI_BODY, "Authorization", "Bearer k");

        long started = System.nanoTime();
        List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            inFlight.add(client.sendAsync(request("/v1/chat/completions", OPENAI_BODY, "Authorization", "Bearer k"),
                    HttpResponse.BodyHandlers.ofString()));
        }
        for (CompletableFuture<HttpResponse<String>> response : inFlight) {
            assertEquals(200, response.get().statusCode());
        }
        long elapsedMillis = (System.nanoTime() - started) / 1_000_000;

        assertTrue(elapsedMillis >= 300, "the latency was not applied: " + elapsedMillis + " ms");
        assertTrue(elapsedMillis < 900, "4 requests of 300 ms took " + elapsedMillis + " ms: served one after another");
        assertEquals(5, server.requestsServed());
    }

    private void start(Duration latency) {
        server = LlmStubServer.start(ScriptFiles.load(dir, SCRIPT), "127.0.0.1", 0, latency);
    }

    private HttpResponse<String> post(String path, String body, String... headers) throws IOException, InterruptedException {
        return client.send(request(path, body, headers), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest request(String path, String body, String... headers) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json");
        if (headers.length > 0) {
            builder.headers(headers);
        }
        return builder.build();
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }
}
