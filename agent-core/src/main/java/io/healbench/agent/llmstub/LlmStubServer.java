package io.healbench.agent.llmstub;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A local HTTP server speaking OpenAI chat completions, Anthropic messages and Gemini generateContent
 * (non-streaming), every reply decided by an {@link LlmStubScript}, so that the real LangChain4j clients can
 * be tested and demonstrated with no provider reachable. Point a client at {@link #openAiBaseUrl()},
 * {@link #anthropicBaseUrl()} or {@link #geminiBaseUrl()} with any non-empty key.
 *
 * <p>Requests are answered on {@value #THREADS} threads, so one reply's latency does not hold up the others
 * (a benchmark runs several attempts at once against a slow stub). The server logs nothing; it keeps request
 * bodies for {@link #requestBodies()} but never headers, which carry the caller's key.
 */
public final class LlmStubServer implements AutoCloseable {

    private static final int THREADS = 16;

    private final HttpServer http;
    private final ExecutorService executor;
    private final LlmStubHandler handler;
    private final List<String> bodies;
    private final String origin;

    private LlmStubServer(HttpServer http, ExecutorService executor, LlmStubHandler handler, List<String> bodies, String host) {
        this.http = http;
        this.executor = executor;
        this.handler = handler;
        this.bodies = bodies;
        String urlHost = host.contains(":") ? "[" + host + "]" : host;
        this.origin = "http://" + urlHost + ":" + http.getAddress().getPort();
    }

    /**
     * Starts serving at once.
     *
     * @param port                  0 for an ephemeral port ({@link #port()} tells which)
     * @param latencyOverrideOrNull waited before every reply instead of the script's {@code latency_ms}; null keeps the script's
     * @throws UncheckedIOException when the address cannot be bound
     */
    public static LlmStubServer start(LlmStubScript script, String host, int port, Duration latencyOverrideOrNull) {
        Duration latency = latencyOverrideOrNull != null ? latencyOverrideOrNull : script.latency();
        if (latency.isNegative()) {
            throw new IllegalArgumentException("latency must not be negative: " + latency);
        }
        InetSocketAddress address = new InetSocketAddress(host, port);
        if (address.isUnresolved()) {
            throw new UncheckedIOException("llm-stub cannot listen on " + host + ": unknown host",
                    new UnknownHostException(host));
        }
        HttpServer http;
        try {
            http = HttpServer.create(address, 0);
        } catch (IOException e) {
            throw new UncheckedIOException("llm-stub cannot listen on " + host + ":" + port + ": " + e.getMessage(), e);
        }
        List<String> bodies = new CopyOnWriteArrayList<>();
        LlmStubHandler handler = new LlmStubHandler(script, latency, bodies);
        ExecutorService executor = Executors.newFixedThreadPool(THREADS, daemonThreads());
        http.createContext("/", handler);
        http.setExecutor(executor);
        http.start();
        return new LlmStubServer(http, executor, handler, bodies, host);
    }

    public int port() {
        return http.getAddress().getPort();
    }

    /** For {@code OpenAiChatModel.builder().baseUrl(...)}: the client appends {@code chat/completions}. */
    public String openAiBaseUrl() {
        return origin + "/v1";
    }

    /** For {@code AnthropicChatModel.builder().baseUrl(...)}: the client appends {@code messages}. */
    public String anthropicBaseUrl() {
        return origin + "/v1/";
    }

    /** For {@code GoogleAiGeminiChatModel.builder().baseUrl(...)}: the client appends {@code /models/{model}:generateContent}. */
    public String geminiBaseUrl() {
        return origin + "/v1beta";
    }

    /** Requests answered so far, errors included. */
    public int requestsServed() {
        return handler.served();
    }

    /** The body of every request received so far, in arrival order, errors included; never headers. */
    public List<String> requestBodies() {
        return List.copyOf(bodies);
    }

    /** Stops at once: the port is released and requests still in flight are cut off. */
    @Override
    public void close() {
        http.stop(0);
        executor.shutdownNow();
    }

    /** Daemon threads, so that a server someone forgot to close does not keep the JVM alive. */
    private static ThreadFactory daemonThreads() {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, "llm-stub-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
