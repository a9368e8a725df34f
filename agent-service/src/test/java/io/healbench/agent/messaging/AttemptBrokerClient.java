package io.healbench.agent.messaging;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import io.healbench.proto.events.v1.AttemptEvent;
import io.healbench.proto.events.v1.AttemptRequest;
import io.healbench.proto.guard.v1.GuardMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * The test's own connection to the real RabbitMQ: publishes attempt requests to the test exchange
 * and reads the attempt events agent-service publishes, through a private queue bound to
 * {@code attempt.#}.
 */
public final class AttemptBrokerClient implements AutoCloseable {

    static final String ATTEMPTS_EXCHANGE = "healbench.attempts.test-agent";
    static final String ATTEMPTS_ROUTING_KEY = "attempts.default";
    static final String EVENTS_EXCHANGE = "healbench.events.test-agent";
    static final String DEAD_LETTER_QUEUE = "attempts.default.dlq.test-agent";

    private final Connection connection;
    private final Channel channel;
    private final String eventQueue;
    private final List<AttemptEvent> seen = new ArrayList<>();

    public AttemptBrokerClient() throws Exception {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost("127.0.0.1");
        factory.setPort(5672);
        factory.setUsername("guest");
        factory.setPassword("guest");
        connection = factory.newConnection("agent-service-test");
        channel = connection.createChannel();
        channel.exchangeDeclare(ATTEMPTS_EXCHANGE, "direct", true);
        channel.exchangeDeclare(EVENTS_EXCHANGE, "topic", true);
        eventQueue = channel.queueDeclare("agent-test-events-" + UUID.randomUUID(), false, true, true, null).getQueue();
        channel.queueBind(eventQueue, EVENTS_EXCHANGE, "attempt.#");
    }

    public static AttemptRequest request(String instanceId, String agent) {
        return AttemptRequest.newBuilder()
                .setTenant("acme")
                .setRunId("run-" + UUID.randomUUID())
                .setAttemptId("attempt-" + UUID.randomUUID())
                .setInstanceId(instanceId)
                .setRepeat(0)
                .setAgent(agent)
                .setGuardMode(GuardMode.ENFORCE)
                .build();
    }

    public void publish(byte[] payload) throws Exception {
        channel.basicPublish(ATTEMPTS_EXCHANGE, ATTEMPTS_ROUTING_KEY,
                new AMQP.BasicProperties.Builder().deliveryMode(2).build(), payload);
    }

    /** The first attempt event matching {@code wanted}, waiting at most {@code timeout}. */
    public Optional<AttemptEvent> awaitEvent(Predicate<AttemptEvent> wanted, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<AttemptEvent> found = seen.stream().filter(wanted).findFirst();
            if (found.isPresent() || System.nanoTime() > deadline) {
                return found;
            }
            GetResponse response = channel.basicGet(eventQueue, true);
            if (response == null) {
                Thread.sleep(100);
            } else {
                seen.add(AttemptEvent.parseFrom(response.getBody()));
            }
        }
    }

    /** Every attempt event received so far (after draining what is waiting) that matches. */
    List<AttemptEvent> eventsMatching(Predicate<AttemptEvent> wanted) throws Exception {
        GetResponse response;
        while ((response = channel.basicGet(eventQueue, true)) != null) {
            seen.add(AttemptEvent.parseFrom(response.getBody()));
        }
        return seen.stream().filter(wanted).toList();
    }

    /** Waits for a dead-lettered message whose body matches, removing only that one. */
    Optional<byte[]> awaitDeadLetter(Predicate<byte[]> wanted, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            GetResponse response = channel.basicGet(DEAD_LETTER_QUEUE, false);
            if (response == null) {
                Thread.sleep(100);
                continue;
            }
            if (wanted.test(response.getBody())) {
                channel.basicAck(response.getEnvelope().getDeliveryTag(), false);
                return Optional.of(response.getBody());
            }
            // Someone else's dead letter (an earlier run): leave it for its owner to inspect.
            channel.basicNack(response.getEnvelope().getDeliveryTag(), false, true);
        }
        return Optional.empty();
    }

    public static Predicate<AttemptEvent> completedOf(String attemptId) {
        return event -> event.getAttemptId().equals(attemptId) && event.hasCompleted();
    }

    public static Predicate<AttemptEvent> startedOf(String attemptId) {
        return event -> event.getAttemptId().equals(attemptId) && event.hasStarted();
    }

    @Override
    public void close() throws Exception {
        connection.close();
    }
}
