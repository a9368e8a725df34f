package io.healbench.sandbox;

import io.healbench.proto.outcome.v1.ExitCause;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.proto.sandbox.v1.CloseSessionRequest;
import io.healbench.proto.sandbox.v1.CreateSessionRequest;
import io.healbench.proto.sandbox.v1.Outcome;
import io.healbench.proto.sandbox.v1.SandboxService;
import io.healbench.proto.sandbox.v1.SandboxServiceGrpc.SandboxServiceBlockingStub;
import io.healbench.proto.sandbox.v1.Session;
import io.healbench.proto.sandbox.v1.SessionEvent;
import io.healbench.proto.sandbox.v1.Variant;
import io.healbench.testsupport.RabbitMqTestResource;
import io.quarkus.grpc.GrpcClient;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The wall-clock limit, set small so a session paused at its crash reaches it. (The output cap is covered in RuntimeMessagesTest.) */
@QuarkusTest
@TestProfile(SandboxTimeLimitTest.SmallLimits.class)
@WithTestResource(RabbitMqTestResource.class)
class SandboxTimeLimitTest {

    public static class SmallLimits implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("healbench.sandbox.wall-clock-limit", "6s");
        }
    }

    @GrpcClient("sandbox")
    SandboxServiceBlockingStub sandbox;

    @GrpcClient("sandbox")
    SandboxService sandboxStreams;

    @Test
    void aSessionPausedTooLongIsKilledAsTimeout() {
        Session session = sandbox.createSession(CreateSessionRequest.newBuilder()
                .setInstanceId("sandbox-colorsys-typeerror-rgb-to-hsv").setVariant(Variant.BUGGY).setIntercept(true).build());
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            watch.await("CRASHED", SessionEvent::hasCrashed, Duration.ofSeconds(60));
            long paused = System.nanoTime();
            Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, Duration.ofSeconds(60)).getFinished();
            assertEquals(ExitCause.TIMEOUT, outcome.getSummary().getExitCause(), outcome.toString());
            assertTrue(outcome.getSummary().getWallTimeMs() >= 6000, outcome.toString());
            assertTrue((System.nanoTime() - paused) / 1_000_000 < 30_000, "killed soon after the limit");
        } finally {
            sandbox.closeSession(CloseSessionRequest.newBuilder().setName(session.getName()).build());
        }
    }
}
