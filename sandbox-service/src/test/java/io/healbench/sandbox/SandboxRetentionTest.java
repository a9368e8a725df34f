package io.healbench.sandbox;

import io.healbench.proto.outcome.v1.ExitCause;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.healbench.proto.guard.v1.GuardMode;
import io.healbench.proto.outcome.v1.ResumeMode;
import io.healbench.proto.sandbox.v1.CloseSessionRequest;
import io.healbench.proto.sandbox.v1.HealSessionRequest;
import io.healbench.proto.sandbox.v1.SandboxService;
import io.healbench.proto.sandbox.v1.SandboxServiceGrpc.SandboxServiceBlockingStub;
import io.healbench.proto.sandbox.v1.Session;
import io.healbench.proto.sandbox.v1.SessionEvent;
import io.healbench.sandbox.service.session.SandboxSessions;
import io.healbench.sandbox.service.workspace.WorkspaceMaterializer;
import io.healbench.testsupport.RabbitMqTestResource;
import io.quarkus.grpc.GrpcClient;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Nothing is left behind, however a session ends: 12 sessions end in four ways (finished and never closed, the wall
 * clock while running, the wall clock while paused with its client gone, closed while running), and afterwards no
 * workspace is on disk and the sandbox holds no session in memory.
 */
@QuarkusTest
@TestProfile(SandboxRetentionTest.ShortRetention.class)
@WithTestResource(GuardServiceResource.class)
@WithTestResource(RabbitMqTestResource.class)
class SandboxRetentionTest {

    public static class ShortRetention implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("healbench.sandbox.wall-clock-limit", WALL_CLOCK_SECONDS + "s",
                    "healbench.sandbox.ended-retention", "2s",
                    "healbench.sandbox.max-sessions", "4",
                    "healbench.sandbox.workspace-root", System.getProperty("java.io.tmpdir") + "/healbench/test-retention-workspaces");
        }
    }

    /*
     * Each round's healed session must pass inside this while two spinning sessions hold both cores of a 2-core
     * machine; in a fresh clone the first round's heal came 5 s after the start (the guard channel opened cold),
     * so 6 s failed there. The spinning and abandoned sessions still end by it.
     */
    static final int WALL_CLOCK_SECONDS = 12;
    static final String NORMAL = "sandbox-colorsys-typeerror-rgb-to-hsv";
    static final String SPINNING = "sandbox-hostile-cpu";
    static final Duration WAIT = Duration.ofSeconds(60);

    @GrpcClient("sandbox")
    SandboxServiceBlockingStub sandbox;

    @GrpcClient("sandbox")
    SandboxService sandboxStreams;

    @Inject
    WorkspaceMaterializer materializer;

    @Inject
    SandboxSessions sessions;

    @Test
    void twelveSessionsEndingFourWaysLeaveNoWorkspaceAndNoSession() throws Exception {
        List<String> names = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            Session finished = create(NORMAL);
            Session timedOut = create(SPINNING);
            Session abandoned = create(NORMAL);
            Session killed = create(SPINNING);
            names.addAll(List.of(finished.getName(), timedOut.getName(), abandoned.getName(), killed.getName()));
            try (SessionEvents f = new SessionEvents(sandboxStreams, finished.getName());
                 SessionEvents t = new SessionEvents(sandboxStreams, timedOut.getName());
                 SessionEvents a = new SessionEvents(sandboxStreams, abandoned.getName())) {
                f.await("CRASHED", SessionEvent::hasCrashed, WAIT);
                sandbox.healSession(HealSessionRequest.newBuilder().setName(finished.getName()).setCode("h = 4.0+gc-rc")
                        .setResume(ResumeMode.SKIP).build());
                assertTrue(f.await("FINISHED", SessionEvent::hasFinished, WAIT).getFinished().getSummary().getPassed());
                sandbox.closeSession(CloseSessionRequest.newBuilder().setName(killed.getName()).build());
                assertEquals(ExitCause.TIMEOUT, t.await("FINISHED", SessionEvent::hasFinished, WAIT).getFinished().getSummary().getExitCause());
                assertEquals(ExitCause.TIMEOUT, a.await("FINISHED", SessionEvent::hasFinished, WAIT).getFinished().getSummary().getExitCause());
            }
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while ((sessions.sessionsHeld() > 0 || !workspaces().isEmpty()) && System.nanoTime() < deadline) {
            SessionEvents.sleep(250);
        }
        assertEquals(List.of(), workspaces(), "no workspace left on disk");
        assertEquals(0, sessions.sessionsHeld(), "no session left in memory");
        for (String name : names) {
            StatusRuntimeException gone = org.junit.jupiter.api.Assertions.assertThrows(StatusRuntimeException.class,
                    () -> sandbox.closeSession(CloseSessionRequest.newBuilder().setName(name).build()));
            assertEquals(Status.Code.NOT_FOUND, gone.getStatus().getCode(), name);
        }
    }

    /** The workspaces in this service's own directory under the workspace root. */
    private List<Path> workspaces() throws IOException {
        try (Stream<Path> dirs = Files.list(materializer.workspaceDirectory())) {
            return dirs.toList();
        }
    }

    private Session create(String instance) {
        return TestSessions.buggy(sandbox, instance, GuardMode.OFF);
    }
}
