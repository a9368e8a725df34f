package io.healbench.bench;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import io.healbench.proto.events.v1.AttemptEvent;
import io.healbench.proto.events.v1.AttemptRequest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeoutException;

/**
 * The test's own RabbitMQ client: reads the attempt work queue as an agent worker would, and
 * publishes attempt events as the sandbox and the agent would. Names carry the test suffix of
 * application.properties' %test profile.
 */
final class BenchTestBroker implements AutoCloseable {

    static final String ATTEMPTS_EXCHANGE = "healbench.attempts.test-bench";
    static final String ATTEMPTS_QUEUE = "attempts.default.test-bench";
    static final String EVENTS_EXCHANGE = "healbench.events.test-bench";

    private final Connection connection;
    private final Channel channel;

    BenchTestBroker() throws IOException, TimeoutException {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost("127.0.0.1");
        factory.setPort(5672);
        factory.setUsername("guest");
        factory.setPassword("guest");
        connection = factory.newConnection("bench-service-tests");
        channel = connection.createChannel();
        // Same declarations as the service's connector, so either side may come first.
        channel.exchangeDeclare(ATTEMPTS_EXCHANGE, "direct", true);
        channel.queueDeclare(ATTEMPTS_QUEUE, true, false, false, null);
        channel.queueBind(ATTEMPTS_QUEUE, ATTEMPTS_EXCHANGE, "attempts.default");
        channel.exchangeDeclare(EVENTS_EXCHANGE, "topic", true);
    }

    void purgeAttempts() throws IOException {
        channel.queuePurge(ATTEMPTS_QUEUE);
    }

    /**
     * Takes (and acks) {@code count} attempt requests of the runs {@code runIds} from the default pool's queue, waiting up
     * to 20 s for them; requests of other runs (earlier tests', which the outbox relay may deliver late) are dropped.
     */
    List<AttemptRequest> takeAttemptsOf(Set<String> runIds, int count) throws IOException, InterruptedException {
        List<AttemptRequest> taken = new ArrayList<>();
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (taken.size() < count && System.nanoTime() < deadline) {
            GetResponse response = channel.basicGet(ATTEMPTS_QUEUE, true);
            if (response == null) {
                Thread.sleep(100);
                continue;
            }
            AttemptRequest request = AttemptRequest.parseFrom(response.getBody());
            if (runIds.contains(request.getRunId())) {
                taken.add(request);
            }
        }
        return taken;
    }

    /** The requests of the runs {@code runIds} waiting in the default pool's queue now (taken). */
    List<AttemptRequest> drainAttemptsOf(Set<String> runIds) throws IOException {
        return drain(ATTEMPTS_QUEUE).stream().filter(r -> runIds.contains(r.getRunId())).toList();
    }

    /**
     * Declares the work queue of agent pool {@code pool} as its workers would (bound with {@code attempts.<pool>}), under
     * a test name, empty; its name.
     */
    String poolQueue(String pool) throws IOException {
        String queue = "attempts." + pool + ".test-bench";
        channel.queueDeclare(queue, false, false, true, null);
        channel.queueBind(queue, ATTEMPTS_EXCHANGE, "attempts." + pool);
        channel.queuePurge(queue);
        return queue;
    }

    /** Takes (and acks) up to {@code count} attempt requests from {@code queue}, waiting up to 20 s for them. */
    List<AttemptRequest> takeAttempts(String queue, int count) throws IOException, InterruptedException {
        List<AttemptRequest> taken = new ArrayList<>();
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (taken.size() < count && System.nanoTime() < deadline) {
            GetResponse response = channel.basicGet(queue, true);
            if (response == null) {
                Thread.sleep(100);
            } else {
                taken.add(AttemptRequest.parseFrom(response.getBody()));
            }
        }
        return taken;
    }

    long queued(String queue) throws IOException {
        return channel.messageCount(queue);
    }

    /**
     * Takes (and acks) every request waiting in {@code queue} now. Other tests' runs share the default pool's queue and
     * the outbox relay may still be delivering theirs, so a test reads this for its own run's requests.
     */
    List<AttemptRequest> drain(String queue) throws IOException {
        List<AttemptRequest> taken = new ArrayList<>();
        for (GetResponse response = channel.basicGet(queue, true); response != null; response = channel.basicGet(queue, true)) {
            taken.add(AttemptRequest.parseFrom(response.getBody()));
        }
        return taken;
    }

    /** Publishes as the sandbox (session.<kind>) or the agent (attempt.<kind>) would. */
    void publish(String routingKey, AttemptEvent event) throws IOException {
        AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder()
                .contentType("application/octet-stream")
                .deliveryMode(2)
                .build();
        channel.basicPublish(EVENTS_EXCHANGE, routingKey, properties, event.toByteArray());
    }

    @Override
    public void close() throws IOException, TimeoutException {
        connection.close();
    }
}
