package io.healbench.agent.llmstub;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Answers every request of the stub: waits the latency, routes by path (404 otherwise), requires POST (405),
 * the provider's auth header (401) and a JSON body of the provider's shape (400), then asks the script.
 * Headers are only looked at, never kept or written anywhere: they carry the caller's key.
 */
final class LlmStubHandler implements HttpHandler {

    private final LlmStubScript script;
    private final Duration latency;
    private final ProviderRouter router = new ProviderRouter();
    private final List<String> bodies;
    private final AtomicInteger served = new AtomicInteger();
    private final AtomicLong replies = new AtomicLong();

    /** @param bodies where each request's body is added, for tests to read */
    LlmStubHandler(LlmStubScript script, Duration latency, List<String> bodies) {
        this.script = script;
        this.latency = latency;
        this.bodies = bodies;
    }

    int served() {
        return served.get();
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            bodies.add(new String(body, StandardCharsets.UTF_8));
            String path = exchange.getRequestURI().getPath();
            ProviderProtocol errorShape = router.serving(path)
                    .orElseGet(() -> router.likelyFor(path, exchange.getRequestHeaders()));
            Answer answer;
            try {
                waitLatency();
                answer = answer(exchange, path, body, errorShape);
            } catch (RuntimeException e) {
                // A stub bug must still reach the client as a provider error, not as a dropped connection.
                answer = new Answer(500, errorShape.error(500, "llm-stub internal error: " + e));
            }
            send(exchange, answer);
        }
    }

    private record Answer(int status, ObjectNode json) {
    }

    private Answer answer(HttpExchange exchange, String path, byte[] body, ProviderProtocol errorShape) {
        Optional<ProviderProtocol> serving = router.serving(path);
        if (serving.isEmpty()) {
            return new Answer(404, errorShape.error(404, "llm-stub serves no " + exchange.getRequestMethod() + " " + path));
        }
        ProviderProtocol protocol = serving.get();
        if (!exchange.getRequestMethod().equals("POST")) {
            return new Answer(405, protocol.error(405, path + " takes POST, not " + exchange.getRequestMethod()));
        }
        if (!protocol.authorized(exchange.getRequestHeaders(), exchange.getRequestURI().getRawQuery())) {
            return new Answer(401, protocol.error(401, "missing API key: llm-stub needs the provider's auth header"));
        }
        StubConversation conversation;
        try {
            conversation = protocol.read(json(body), path, body.length);
        } catch (StubRequestException e) {
            return new Answer(400, protocol.error(400, e.getMessage()));
        }
        StubReply reply = script.reply(conversation);
        if (reply.errorStatus().isPresent()) {
            int status = reply.errorStatus().getAsInt();
            return new Answer(status, protocol.error(status, "llm-stub scripted error " + status));
        }
        return new Answer(200, protocol.reply(reply, conversation, replies.incrementAndGet()));
    }

    private static JsonNode json(byte[] body) {
        try {
            JsonNode json = StubJson.MAPPER.readTree(body);
            if (json == null || !json.isObject()) {
                throw new StubRequestException("the request body must be a JSON object");
            }
            return json;
        } catch (JsonProcessingException e) {
            throw new StubRequestException("the request body is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new StubRequestException("the request body cannot be read: " + e.getMessage());
        }
    }

    private void waitLatency() {
        if (latency.isZero()) {
            return;
        }
        try {
            Thread.sleep(latency.toMillis());
        } catch (InterruptedException e) {
            // The server is closing and will drop this exchange; stop waiting.
            Thread.currentThread().interrupt();
        }
    }

    /** Counted before the bytes go out, so a client that has its reply sees it in {@code requestsServed()}. */
    private void send(HttpExchange exchange, Answer answer) throws IOException {
        byte[] bytes = StubJson.MAPPER.writeValueAsBytes(answer.json());
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        served.incrementAndGet();
        exchange.sendResponseHeaders(answer.status(), bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
