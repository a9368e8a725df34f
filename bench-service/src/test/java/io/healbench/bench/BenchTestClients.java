package io.healbench.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import io.healbench.proto.bench.v1.BenchServiceGrpc;
import io.healbench.proto.events.v1.AttemptEvent;
import io.healbench.proto.events.v1.AttemptRequest;
import io.healbench.testsupport.TestBroker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeoutException;

/**
 * The tests' clients of the bench-service under test: real tokens from the test Keycloak, gRPC stubs that carry them,
 * REST, and the broker as the agent workers and the sandbox see it (the work queues they read, the events exchange
 * they publish to; names with the test suffix of application.properties' %test profile).
 */
final class BenchTestClients implements AutoCloseable {

    static final int PORT = 18104;
    static final String ATTEMPTS_EXCHANGE = "healbench.attempts.test-bench";
    static final String ATTEMPTS_QUEUE = "attempts.default.test-bench";
    static final String EVENTS_EXCHANGE = "healbench.events.test-bench";
    /** How long a test waits for the outbox relay to deliver a run's requests. */
    private static final Duration DELIVERY_WAIT = Duration.ofSeconds(20);

    private final HttpClient http = HttpClient.newHttpClient();
    private final ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", PORT).usePlaintext().build();
    private TestBroker broker;

    /** An access token by the password grant of the public client healbench-cli. */
    String token(String realm, String user) {
        return token(realm, user, "healbench-cli");
    }

    /** An access token by the password grant of a public client of the realm. */
    String token(String realm, String user, String client) {
        String form = "grant_type=password&client_id=" + encode(client) + "&username=" + encode(user)
                + "&password=" + encode(user + "-test-pw");
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create(KeycloakTestResource.issuer(realm) + "/protocol/openid-connect/token"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form))
                .build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("token request for " + user + " failed: " + response.body());
            }
            JsonNode body = new ObjectMapper().readTree(response.body());
            return body.get("access_token").asText();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    BenchServiceGrpc.BenchServiceBlockingStub as(String realm, String user) {
        return withBearer(token(realm, user));
    }

    BenchServiceGrpc.BenchServiceBlockingStub withBearer(String token) {
        Metadata headers = new Metadata();
        headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
        return anonymous().withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
    }

    BenchServiceGrpc.BenchServiceBlockingStub anonymous() {
        return BenchServiceGrpc.newBlockingStub(channel);
    }

    HttpResponse<String> restGet(String path, String token) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + PORT + path)).GET();
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The broker, with the default pool's queue declared as its workers would (so either side may come first). */
    TestBroker broker() throws IOException, TimeoutException {
        if (broker == null) {
            broker = TestBroker.connect("bench-service-tests");
            broker.declareExchange(ATTEMPTS_EXCHANGE, "direct");
            broker.declareQueue(ATTEMPTS_QUEUE, ATTEMPTS_EXCHANGE, "attempts.default");
            broker.declareExchange(EVENTS_EXCHANGE, "topic");
        }
        return broker;
    }

    /**
     * Takes {@code count} attempt requests of the runs {@code runIds} from the default pool's queue, waiting for them;
     * requests of other runs (earlier tests', which the outbox relay may deliver late) are dropped.
     */
    List<AttemptRequest> takeAttemptsOf(Set<String> runIds, int count) throws Exception {
        return broker().take(ATTEMPTS_QUEUE, AttemptRequest::parseFrom, r -> runIds.contains(r.getRunId()), count, DELIVERY_WAIT);
    }

    /** Takes up to {@code count} attempt requests from {@code queue}, waiting for them. */
    List<AttemptRequest> takeAttempts(String queue, int count) throws Exception {
        return broker().take(queue, AttemptRequest::parseFrom, r -> true, count, DELIVERY_WAIT);
    }

    /** Takes the requests waiting in the default pool's queue now, and returns those of the runs {@code runIds}. */
    List<AttemptRequest> drainAttemptsOf(Set<String> runIds) throws Exception {
        return broker().drain(ATTEMPTS_QUEUE, AttemptRequest::parseFrom).stream().filter(r -> runIds.contains(r.getRunId())).toList();
    }

    /** The work queue of agent pool {@code pool}, declared as its workers would under a test name, empty; its name. */
    String poolQueue(String pool) throws Exception {
        String queue = "attempts." + pool + ".test-bench";
        broker().declareTemporaryQueue(queue, ATTEMPTS_EXCHANGE, "attempts." + pool);
        return queue;
    }

    /** Publishes as the sandbox (session.<kind>) or the agent (attempt.<kind>) would. */
    void publish(String routingKey, AttemptEvent event) throws Exception {
        broker().publish(EVENTS_EXCHANGE, routingKey, event.toByteArray());
    }

    @Override
    public void close() {
        channel.shutdownNow();
        if (broker != null) {
            try {
                broker.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
