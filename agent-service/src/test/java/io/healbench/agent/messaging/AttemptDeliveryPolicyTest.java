package io.healbench.agent.messaging;

import io.healbench.proto.outcome.v1.ExitCause;
import io.healbench.proto.outcome.v1.FailureClass;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.proto.events.v1.AttemptCompleted;
import io.healbench.proto.events.v1.AttemptEvent;
import io.healbench.proto.events.v1.AttemptRequest;
import io.healbench.testsupport.RabbitMqTestResource;
import io.healbench.testsupport.TestBroker;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** How attempt messages are settled, over the real RabbitMQ, when the sandbox cannot be reached. */
@QuarkusTest
@TestProfile(UnreachableSandboxProfile.class)
@WithTestResource(RabbitMqTestResource.class)
class AttemptDeliveryPolicyTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private TestBroker broker;
    private TestBroker.Subscription<AttemptEvent> events;

    @BeforeEach
    void connect() throws Exception {
        broker = AttemptMessages.connect();
        events = AttemptMessages.attemptEvents(broker);
    }

    @AfterEach
    void disconnect() throws Exception {
        broker.close();
    }

    @Test
    void anUnavailableSandboxIsRequeuedAFewTimesThenRecordedAsInfrastructure() throws Exception {
        AttemptRequest request = AttemptMessages.request("stdlib-colorsys-zerodivisionerror-rgb-to-hls", "rules");
        AttemptMessages.send(broker, request.toByteArray());

        AttemptEvent event = events.await(AttemptMessages.completedOf(request.getAttemptId()), WAIT)
                .orElseThrow(() -> new AssertionError("no attempt.completed for " + request.getAttemptId()));

        AttemptCompleted completed = event.getCompleted();
        assertEquals(FailureClass.INFRASTRUCTURE, completed.getFailureClass());
        assertEquals(ExitCause.NOT_STARTED, completed.getSummary().getExitCause());
        assertTrue(completed.getDetail().startsWith("still failing after 2 requeue(s): "), completed.getDetail());
        assertTrue(completed.getDetail().contains("UNAVAILABLE"), completed.getDetail());
        assertEquals(request.getAttemptId() + "/completed", event.getEventId());
        assertEquals(request.getTenant(), event.getTenant());
        assertEquals(request.getRunId(), event.getRunId());
        assertEquals(request.getInstanceId(), event.getInstanceId());
        // Settled for good: neither a second completion nor a start (no session was ever created).
        Thread.sleep(2000);
        assertEquals(1, events.matching(AttemptMessages.completedOf(request.getAttemptId())).size());
        assertEquals(0, events.matching(AttemptMessages.startedOf(request.getAttemptId())).size());
    }

    @Test
    void anUnknownAgentIsTheAgentsFailureWithoutTouchingTheSandbox() throws Exception {
        AttemptRequest request = AttemptMessages.request("stdlib-colorsys-zerodivisionerror-rgb-to-hls", "no-such-agent");
        AttemptMessages.send(broker, request.toByteArray());

        AttemptCompleted completed = events.await(AttemptMessages.completedOf(request.getAttemptId()), WAIT)
                .orElseThrow(() -> new AssertionError("no attempt.completed for " + request.getAttemptId()))
                .getCompleted();

        assertEquals(FailureClass.AGENT, completed.getFailureClass());
        assertTrue(completed.getDetail().contains("no-such-agent") && completed.getDetail().contains("rules"),
                completed.getDetail());
        assertEquals(0, completed.getSummary().getHealPoints());
    }

    @Test
    void aPayloadThatIsNotAnAttemptRequestIsDeadLetteredNotRetried() throws Exception {
        // Field 1 with wire type 7 does not exist: no protobuf parser accepts it.
        byte[] marker = UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8);
        byte[] garbage = new byte[marker.length + 1];
        garbage[0] = 0x0F;
        System.arraycopy(marker, 0, garbage, 1, marker.length);
        AttemptMessages.send(broker, garbage);

        byte[] deadLetter = broker.awaitAndTake(AttemptMessages.DEAD_LETTER_QUEUE, body -> Arrays.equals(body, garbage), WAIT)
                .orElseThrow(() -> new AssertionError("the malformed request did not reach the dead-letter queue"));
        assertArrayEquals(garbage, deadLetter);
    }

    @Test
    void aRequestWithoutAttemptIdIsDeadLettered() throws Exception {
        AttemptRequest request = AttemptMessages.request("instance-" + UUID.randomUUID(), "rules").toBuilder()
                .clearAttemptId()
                .build();
        AttemptMessages.send(broker, request.toByteArray());

        byte[] deadLetter = broker.awaitAndTake(AttemptMessages.DEAD_LETTER_QUEUE, body -> Arrays.equals(body, request.toByteArray()), WAIT)
                .orElseThrow(() -> new AssertionError("the request without attempt_id was not dead-lettered"));
        assertEquals(request.getInstanceId(), AttemptRequest.parseFrom(deadLetter).getInstanceId());
    }
}
