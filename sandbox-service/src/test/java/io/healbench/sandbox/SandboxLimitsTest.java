package io.healbench.sandbox;

import io.healbench.proto.outcome.v1.ExitCause;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.healbench.proto.sandbox.v1.CloseSessionRequest;
import io.healbench.proto.sandbox.v1.CreateSessionRequest;
import io.healbench.proto.sandbox.v1.GetReferenceRunRequest;
import io.healbench.proto.sandbox.v1.HealSessionRequest;
import io.healbench.proto.sandbox.v1.Outcome;
import io.healbench.proto.sandbox.v1.ProbeSessionRequest;
import io.healbench.proto.sandbox.v1.ReadFileRequest;
import io.healbench.proto.sandbox.v1.ReadFileResponse;
import io.healbench.proto.sandbox.v1.ReraiseSessionRequest;
import io.healbench.proto.sandbox.v1.Session;
import io.healbench.proto.sandbox.v1.SessionEvent;
import io.healbench.proto.sandbox.v1.Variant;
import io.healbench.proto.sandbox.v1.WatchSessionRequest;
import io.healbench.sandbox.service.workspace.WorkspaceMaterializer;
import io.healbench.testsupport.RabbitMqTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Limits and refusals of the session API, over real gRPC with real runtime processes (max-sessions is 2 in tests). */
@QuarkusTest
@WithTestResource(RabbitMqTestResource.class)
class SandboxLimitsTest extends SandboxSessionTest {

    static final String INSTANCE = "sandbox-colorsys-typeerror-rgb-to-hsv";

    @Inject
    WorkspaceMaterializer materializer;

    private Session create(String requestId, Variant variant, boolean intercept) {
        Session session = sandbox.createSession(CreateSessionRequest.newBuilder()
                .setInstanceId(INSTANCE).setVariant(variant).setIntercept(intercept).setRequestId(requestId).build());
        opened.add(session.getName());
        return session;
    }

    private static StatusRuntimeException refused(Status.Code code, String reason, Supplier<?> call) {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call::get);
        assertEquals(code, e.getStatus().getCode(), e.toString());
        assertEquals(reason, SessionEvents.reason(e));
        return e;
    }

    @Test
    void sessionsBeyondTheLimitAreRefusedAndRequestIdsAreIdempotent() {
        Session first = create("req-" + UUID.randomUUID(), Variant.BUGGY, true);
        String secondRequest = "req-" + UUID.randomUUID();
        Session second = create(secondRequest, Variant.BUGGY, true);
        assertNotEquals(first.getName(), second.getName());
        assertEquals(second.getName(), create(secondRequest, Variant.BUGGY, true).getName(), "same request_id, same session");

        StatusRuntimeException e = refused(Status.Code.RESOURCE_EXHAUSTED, "TOO_MANY_SESSIONS",
                () -> create("req-" + UUID.randomUUID(), Variant.BUGGY, true));
        assertTrue(e.getStatus().getDescription().contains("limit is 2"), e.toString());

        sandbox.closeSession(CloseSessionRequest.newBuilder().setName(first.getName()).build());
        Session third = create("req-" + UUID.randomUUID(), Variant.BUGGY, true);
        assertNotEquals(Session.State.CLOSED, third.getState(), "a slot frees up when a session is closed");
    }

    @Test
    void unknownSessionsAndInstancesAreNotFound() {
        refused(Status.Code.NOT_FOUND, "SESSION_NOT_FOUND",
                () -> sandbox.probeSession(ProbeSessionRequest.newBuilder().setName("sessions/does-not-exist").setCode("1").build()));
        refused(Status.Code.NOT_FOUND, "SESSION_NOT_FOUND",
                () -> sandbox.healSession(HealSessionRequest.newBuilder().setName("sessions/does-not-exist").setCode("x = 1").build()));
        refused(Status.Code.NOT_FOUND, "SESSION_NOT_FOUND",
                () -> sandbox.closeSession(CloseSessionRequest.newBuilder().setName("sessions/does-not-exist").build()));
        StatusRuntimeException watch = assertThrows(StatusRuntimeException.class, () -> sandboxStreams
                .watchSession(WatchSessionRequest.newBuilder().setName("sessions/does-not-exist").build())
                .collect().asList().await().atMost(Duration.ofSeconds(10)));
        assertEquals(Status.Code.NOT_FOUND, watch.getStatus().getCode());
        refused(Status.Code.NOT_FOUND, "INSTANCE_NOT_FOUND", () -> sandbox.createSession(CreateSessionRequest.newBuilder()
                .setInstanceId("no-such-instance").setVariant(Variant.BUGGY).build()));
        refused(Status.Code.INVALID_ARGUMENT, "INSTANCE_ID_INVALID", () -> sandbox.createSession(CreateSessionRequest.newBuilder()
                .setInstanceId("../../etc").setVariant(Variant.BUGGY).build()));
        // A reference run is named as a resource under its instance; a bare instance id, or a longer path, is not one.
        refused(Status.Code.INVALID_ARGUMENT, "REFERENCE_RUN_NAME_INVALID", () -> sandbox.getReferenceRun(
                GetReferenceRunRequest.newBuilder().setName("sandbox-test-colorsys").build()));
        refused(Status.Code.INVALID_ARGUMENT, "REFERENCE_RUN_NAME_INVALID", () -> sandbox.getReferenceRun(
                GetReferenceRunRequest.newBuilder().setName("instances/a/b/referenceRun").build()));
        refused(Status.Code.INVALID_ARGUMENT, "INSTANCE_ID_INVALID", () -> sandbox.getReferenceRun(
                GetReferenceRunRequest.newBuilder().setName("instances/..%2f/referenceRun").build()));
        refused(Status.Code.INVALID_ARGUMENT, "GUARD_MODE_INVALID", () -> sandbox.createSession(CreateSessionRequest.newBuilder()
                .setInstanceId("no-such-instance").setVariant(Variant.BUGGY).setGuardModeValue(42).build()));
    }

    @Test
    void readFileIsConfinedToTheSources() {
        Session session = create("req-" + UUID.randomUUID(), Variant.BUGGY, true);
        ReadFileResponse whole = sandbox.readFile(ReadFileRequest.newBuilder().setParent(session.getName()).setPath("colorsys.py").build());
        assertTrue(whole.getTotalLines() > 140);
        assertEquals(whole.getTotalLines(), whole.getContent().split("\n", -1).length - 1);
        for (String escape : List.of("../healrt-spec.json", "../../../../etc/passwd", "/etc/passwd", "sub/../../control.sock")) {
            refused(Status.Code.INVALID_ARGUMENT, "PATH_ESCAPES_WORKSPACE",
                    () -> sandbox.readFile(ReadFileRequest.newBuilder().setParent(session.getName()).setPath(escape).build()));
        }
        refused(Status.Code.NOT_FOUND, "FILE_NOT_FOUND",
                () -> sandbox.readFile(ReadFileRequest.newBuilder().setParent(session.getName()).setPath("nope.py").build()));
    }

    @Test
    void commandsNeedAPausedCrashAndClosingDeletesTheWorkspace() throws Exception {
        Session session = create("req-" + UUID.randomUUID(), Variant.REFERENCE, false);
        Outcome outcome;
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            outcome = watch.await("FINISHED", SessionEvent::hasFinished, Duration.ofSeconds(90)).getFinished();
            assertTrue(watch.all().stream().noneMatch(SessionEvent::hasCrashed), "the reference run does not crash");
        }
        assertTrue(outcome.getSummary().getPassed(), outcome.toString());
        assertEquals(ExitCause.EXITED, outcome.getSummary().getExitCause());
        assertEquals(0, outcome.getExitCode());

        refused(Status.Code.FAILED_PRECONDITION, "SESSION_NOT_CRASHED",
                () -> sandbox.healSession(HealSessionRequest.newBuilder().setName(session.getName()).setCode("x = 1").build()));
        refused(Status.Code.FAILED_PRECONDITION, "SESSION_NOT_CRASHED",
                () -> sandbox.reraiseSession(ReraiseSessionRequest.newBuilder().setName(session.getName()).build()));

        List<Path> before = workspaces();
        assertFalse(before.isEmpty());
        Session closed = sandbox.closeSession(CloseSessionRequest.newBuilder().setName(session.getName()).build());
        assertEquals(Session.State.CLOSED, closed.getState());
        assertTrue(workspaces().size() < before.size(), "the workspace is deleted on close");
    }

    @Test
    void reraiseLetsTheCrashPropagateAndClosingKillsALiveProcess() throws Exception {
        Session session = create("req-" + UUID.randomUUID(), Variant.BUGGY, true);
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            watch.await("CRASHED", SessionEvent::hasCrashed, Duration.ofSeconds(90));
            Session resumed = sandbox.reraiseSession(ReraiseSessionRequest.newBuilder().setName(session.getName()).build());
            assertEquals(Session.State.RUNNING, resumed.getState());
            Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, Duration.ofSeconds(90)).getFinished();
            assertFalse(outcome.getSummary().getPassed(), outcome.toString());
            assertFalse(outcome.getSummary().getProceeded(), outcome.toString());
            assertEquals(1, outcome.getSummary().getHealPoints());
        }

        Session live = create("req-" + UUID.randomUUID(), Variant.BUGGY, true);
        try (SessionEvents watch = new SessionEvents(sandboxStreams, live.getName())) {
            watch.await("CRASHED", SessionEvent::hasCrashed, Duration.ofSeconds(90));
            sandbox.closeSession(CloseSessionRequest.newBuilder().setName(live.getName()).build());
            Outcome killed = watch.await("FINISHED", SessionEvent::hasFinished, Duration.ofSeconds(30)).getFinished();
            assertEquals(ExitCause.KILLED, killed.getSummary().getExitCause(), killed.toString());
        }
    }

    private List<Path> workspaces() throws Exception {
        try (var dirs = Files.list(materializer.workspaceDirectory())) {
            return dirs.toList();
        }
    }
}
