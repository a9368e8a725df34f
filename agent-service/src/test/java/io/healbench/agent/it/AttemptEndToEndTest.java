package io.healbench.agent.it;

import io.healbench.proto.outcome.v1.FailureClass;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.agent.messaging.AttemptMessages;
import io.healbench.proto.events.v1.AttemptCompleted;
import io.healbench.proto.events.v1.AttemptEvent;
import io.healbench.proto.events.v1.AttemptRequest;
import io.healbench.testsupport.RabbitMqTestResource;
import io.healbench.testsupport.TestBroker;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * One real attempt, end to end: an AttemptRequest on RabbitMQ, agent-service driving the real
 * sandbox-service (which gates heals through the real guard-service) with the rules agent, and the
 * attempt's events back on RabbitMQ.
 */
@QuarkusTest
@WithTestResource(SandboxStackResource.class)
@WithTestResource(RabbitMqTestResource.class)
class AttemptEndToEndTest {

    private static final String INSTANCE = "stdlib-colorsys-zerodivisionerror-rgb-to-hls";

    @Test
    void theRulesAgentHealsARealCrashAndTheAttemptIsReported() throws Exception {
        try (TestBroker broker = AttemptMessages.connect()) {
            TestBroker.Subscription<AttemptEvent> events = AttemptMessages.attemptEvents(broker);
            AttemptRequest request = AttemptMessages.request(INSTANCE, "rules");
            AttemptMessages.send(broker, request.toByteArray());

            AttemptEvent started = events.await(AttemptMessages.startedOf(request.getAttemptId()),
                            Duration.ofSeconds(120))
                    .orElseThrow(() -> new AssertionError("no attempt.started for " + request.getAttemptId()));
            assertFalse(started.getStarted().getSession().isBlank());

            AttemptEvent event = events.await(AttemptMessages.completedOf(request.getAttemptId()),
                            Duration.ofSeconds(300))
                    .orElseThrow(() -> new AssertionError("no attempt.completed for " + request.getAttemptId()));
            AttemptCompleted completed = event.getCompleted();

            assertEquals(FailureClass.NONE, completed.getFailureClass(), completed.getDetail());
            assertEquals("ZeroDivisionError", completed.getExceptionType());
            assertTrue(completed.getSummary().getHealPoints() >= 1, completed.toString());
            assertTrue(completed.getSummary().getHealsApplied() >= 1, completed.toString());
            assertEquals(completed.getSummary().getHealPoints() > 0, completed.getSummary().getHealsApplied() + completed.getSummary().getHealsRejected() > 0);
            assertTrue(completed.getSummary().getWallTimeMs() > 0, completed.toString());
            // The sandbox compared the healed run with the reference run (docs/trace-similarity.md).
            assertTrue(completed.getTraceSimilarity() > 0.0 && completed.getTraceSimilarity() <= 1.0, completed.toString());
        }
    }
}
