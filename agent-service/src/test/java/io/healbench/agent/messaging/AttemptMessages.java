package io.healbench.agent.messaging;

import io.healbench.proto.events.v1.AttemptEvent;
import io.healbench.proto.events.v1.AttemptRequest;
import io.healbench.proto.guard.v1.GuardMode;
import io.healbench.testsupport.TestBroker;
import java.io.IOException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * agent-service's messages as its tests send and read them on the real RabbitMQ: attempt requests to the work exchange
 * as bench-service sends them, attempt events back. The names are those of application.properties' %test profile.
 */
public final class AttemptMessages {

    static final String ATTEMPTS_EXCHANGE = "healbench.attempts.test-agent";
    static final String ATTEMPTS_ROUTING_KEY = "attempts.default";
    static final String EVENTS_EXCHANGE = "healbench.events.test-agent";
    static final String DEAD_LETTER_QUEUE = "attempts.default.dlq.test-agent";
    static final String WORK_QUEUE = "attempts.default.test-agent";

    private AttemptMessages() {
    }

    /**
     * The test's broker connection, once agent-service consumes its work queue: a request sent before that would find
     * no queue bound and be dropped. Both exchanges are declared so that the test's subscription may come first.
     */
    public static TestBroker connect() throws IOException, TimeoutException, InterruptedException {
        TestBroker broker = TestBroker.connect("agent-service-test");
        broker.declareExchange(ATTEMPTS_EXCHANGE, "direct");
        broker.declareExchange(EVENTS_EXCHANGE, "topic");
        broker.awaitConsumer(WORK_QUEUE, Duration.ofSeconds(60));
        return broker;
    }

    /** The attempt events agent-service publishes from now on. */
    public static TestBroker.Subscription<AttemptEvent> attemptEvents(TestBroker broker) throws IOException {
        return broker.subscribe(EVENTS_EXCHANGE, "attempt.#", (routingKey, body) -> AttemptEvent.parseFrom(body));
    }

    /** Sends {@code payload} to the default pool's work queue, as bench-service sends an attempt request. */
    public static void send(TestBroker broker, byte[] payload) throws IOException {
        broker.publish(ATTEMPTS_EXCHANGE, ATTEMPTS_ROUTING_KEY, payload);
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

    public static Predicate<AttemptEvent> completedOf(String attemptId) {
        return event -> event.getAttemptId().equals(attemptId) && event.hasCompleted();
    }

    public static Predicate<AttemptEvent> startedOf(String attemptId) {
        return event -> event.getAttemptId().equals(attemptId) && event.hasStarted();
    }
}
