package io.healbench.agent.cassette;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback stand-in for the OpenAI chat-completions endpoint that counts its hits. The n-th hit answers
 * {@code "answer n"}, so a test can tell which recorded exchange a replay returned; a prompt containing
 * {@code please fail} gets a 400 in OpenAI's error shape, and one containing {@code answer slowly} waits a second first.
 */
final class ChatCompletionsServer implements AutoCloseable {

    static final String API_KEY = "sk-secret-test-123";
    static final String FAILING_PROMPT = "please fail";
    static final String SLOW_PROMPT = "answer slowly";
    /** A base URL where nothing listens: a replaying model pointed there proves it never needs the server. */
    static final String NOWHERE = "http://127.0.0.1:9/v1";

    private final HttpServer server;
    private final AtomicInteger hits = new AtomicInteger();

    ChatCompletionsServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::answer);
        server.start();
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    int hits() {
        return hits.get();
    }

    /** A real OpenAI chat model on this server that talks through {@code cassette}, without retries. */
    ChatModel model(Cassette cassette) {
        return model(baseUrl(), cassette, 0);
    }

    static ChatModel model(String baseUrl, Cassette cassette, int maxRetries) {
        return OpenAiChatModel.builder()
                .baseUrl(baseUrl)
                .apiKey(API_KEY)
                .modelName("m")
                .maxRetries(maxRetries)
                .httpClientBuilder(new CassetteHttpClientBuilder(cassette))
                .build();
    }

    private void answer(HttpExchange exchange) throws IOException {
        int hit = hits.incrementAndGet();
        String request = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        if (request.contains(SLOW_PROMPT)) {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (request.contains(FAILING_PROMPT)) {
            respond(exchange, 400, """
                    {"error":{"message":"you asked to fail","type":"invalid_request_error","code":null}}""");
        } else {
            respond(exchange, 200, """
                    {"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,\
                    "message":{"role":"assistant","content":"answer %d"},"finish_reason":"stop"}],\
                    "usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}""".formatted(hit));
        }
    }

    private static void respond(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
