package io.healbench.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.Code;
import io.grpc.StatusRuntimeException;
import io.healbench.proto.events.v1.AttemptEvent;
import io.healbench.proto.guard.v1.GuardMode;
import io.healbench.proto.guard.v1.GuardStage;
import io.healbench.proto.guard.v1.GuardVerdict;
import io.healbench.proto.outcome.v1.ResumeMode;
import io.healbench.proto.sandbox.v1.CloseSessionRequest;
import io.healbench.proto.sandbox.v1.CrashContext;
import io.healbench.proto.sandbox.v1.CreateSessionRequest;
import io.healbench.proto.sandbox.v1.Frame;
import io.healbench.proto.sandbox.v1.HealResult;
import io.healbench.proto.sandbox.v1.HealSessionRequest;
import io.healbench.proto.sandbox.v1.Outcome;
import io.healbench.proto.sandbox.v1.ProbeResult;
import io.healbench.proto.sandbox.v1.ProbeSessionRequest;
import io.healbench.proto.sandbox.v1.ReadFileRequest;
import io.healbench.proto.sandbox.v1.Session;
import io.healbench.proto.sandbox.v1.SessionEvent;
import io.healbench.proto.sandbox.v1.Variant;
import io.healbench.testsupport.RabbitMqTestResource;
import io.healbench.testsupport.TestBroker;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A real session over gRPC: real CPython 3.11.7 under the real healrt, heals gated by the real guard-service. */
@QuarkusTest
@WithTestResource(GuardServiceResource.class)
@WithTestResource(RabbitMqTestResource.class)
class SandboxSessionGrpcTest extends SandboxSessionTest {

    static final String INSTANCE = "sandbox-colorsys-typeerror-rgb-to-hsv";
    static final String EXCHANGE = "healbench.events.test-sandbox";
    static final Duration CRASH_WAIT = Duration.ofSeconds(90);
    static final Duration FINISH_WAIT = Duration.ofSeconds(90);
    static final String CORRECT_HEAL = "h = 4.0+gc-rc";

    private TestBroker broker;
    /** The session events published from the start of the test on; several assertions may look for different ones. */
    private TestBroker.Subscription<AttemptEvent> events;

    @BeforeEach
    void listenForSessionEvents() throws Exception {
        broker = TestBroker.connect("sandbox-service-test");
        broker.declareExchange(EXCHANGE, "topic");
        events = broker.subscribe(EXCHANGE, "session.#", SandboxSessionGrpcTest::sessionEvent);
    }

    @AfterEach
    void disconnect() throws Exception {
        broker.close();
    }

    private static AttemptEvent sessionEvent(String routingKey, byte[] body) {
        assertTrue(routingKey.startsWith("session."), routingKey);
        try {
            return AttemptEvent.parseFrom(body);
        } catch (InvalidProtocolBufferException e) {
            throw new AssertionError("session-events carried a non-AttemptEvent payload", e);
        }
    }

    private Session create(String attemptId) {
        return create(attemptId, GuardMode.ENFORCE);
    }

    private Session create(String attemptId, GuardMode guardMode) {
        Session session = sandbox.createSession(CreateSessionRequest.newBuilder()
                .setInstanceId(INSTANCE).setVariant(Variant.BUGGY).setIntercept(true).setGuardMode(guardMode)
                .setRequestId(UUID.randomUUID().toString())
                .putLabels("tenant", "t-sandbox-test").putLabels("run_id", "run-1").putLabels("attempt_id", attemptId)
                .build());
        opened.add(session.getName());
        return session;
    }

    private HealResult heal(Session session, String code) {
        return sandbox.healSession(HealSessionRequest.newBuilder().setName(session.getName()).setCode(code).setResume(ResumeMode.SKIP).build());
    }

    @Test
    void anInstanceThatChangedSinceItsRunWasCreatedIsRefused() {
        StatusRuntimeException refused = assertThrows(StatusRuntimeException.class, () -> sandbox.createSession(
                CreateSessionRequest.newBuilder().setInstanceId(INSTANCE).setVariant(Variant.BUGGY).setIntercept(true)
                        .setRequestId(UUID.randomUUID().toString()).setExpectedDigest("sha256:not-the-digest-of-today")
                        .putLabels("tenant", "t-sandbox-test").putLabels("attempt_id", "attempt-" + UUID.randomUUID()).build()));
        assertEquals(io.grpc.Status.Code.FAILED_PRECONDITION, refused.getStatus().getCode());
        assertEquals("INSTANCE_CHANGED", SessionEvents.reason(refused));
        assertTrue(refused.getStatus().getDescription().contains("not-the-digest-of-today"), refused.getStatus().toString());
    }

    @Test
    void aResumeModeTheServerDoesNotKnowIsRefusedNotTakenForSkip() {
        StatusRuntimeException refused = assertThrows(StatusRuntimeException.class, () -> sandbox.healSession(
                HealSessionRequest.newBuilder().setName("sessions/" + UUID.randomUUID()).setCode("x = 1").setResumeValue(99).build()));
        assertEquals(io.grpc.Status.Code.INVALID_ARGUMENT, refused.getStatus().getCode());
        assertEquals("RESUME_MODE_INVALID", SessionEvents.reason(refused));
    }

    @Test
    void crashIsHealedAndTheTestProceeds() throws Exception {
        String attempt = "attempt-" + UUID.randomUUID();
        Session session = create(attempt);
        assertEquals("t-sandbox-test", session.getLabelsOrThrow("tenant"));
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            CrashContext crash = watch.await("CRASHED", SessionEvent::hasCrashed, CRASH_WAIT).getCrashed();
            assertEquals(1, crash.getHealPoint());
            assertEquals("TypeError", crash.getExceptionType());
            assertTrue(crash.getExceptionMessage().contains("'float' and 'str'"), crash.getExceptionMessage());
            Frame innermost = crash.getTraceback(crash.getTracebackCount() - 1);
            assertTrue(innermost.getFile().endsWith("colorsys.py"), innermost.toString());
            assertEquals("rgb_to_hsv", innermost.getFunction());
            assertEquals(141, innermost.getLine());
            assertTrue(innermost.getProject());
            assertTrue(crash.getStatement().getSource().contains("str(rc)"), crash.getStatement().toString());
            assertTrue(crash.getFunctionSource().startsWith("def rgb_to_hsv"), crash.getFunctionSource());
            assertTrue(crash.getLocalsList().stream().anyMatch(v -> v.getName().equals("rc") && v.getRepr().equals("1.0")), crash.getLocalsList().toString());

            ProbeResult probe = sandbox.probeSession(ProbeSessionRequest.newBuilder().setName(session.getName()).setCode("4.0+gc-rc").build());
            assertTrue(probe.getOk(), probe.toString());
            assertEquals("4.0", probe.getValueRepr());

            String line = sandbox.readFile(ReadFileRequest.newBuilder().setParent(session.getName()).setPath("colorsys.py")
                    .setStartLine(141).setEndLine(141).build()).getContent();
            assertEquals("        h = 4.0+gc-str(rc)\n", line);

            HealResult healed = heal(session, CORRECT_HEAL);
            assertTrue(healed.getApplied(), healed.toString());
            assertEquals(ResumeMode.SKIP, healed.getResumed());
            assertTrue(healed.getChangedList().contains("h"), healed.toString());
            assertEquals(GuardStage.GATE, healed.getGuardDecisions(0).getStage());
            assertEquals(GuardVerdict.ACCEPTED, healed.getGuardDecisions(0).getVerdict());
            assertEquals(GuardStage.STATIC, healed.getGuardDecisions(1).getStage());
            assertEquals(GuardVerdict.ACCEPTED, healed.getGuardDecisions(1).getVerdict(), healed.toString());

            Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, FINISH_WAIT).getFinished();
            assertTrue(outcome.getSummary().getProceeded(), outcome.toString());
            assertTrue(outcome.getSummary().getPassed(), outcome.toString());
            assertEquals(1, outcome.getSummary().getHealPoints());
            assertEquals(1, outcome.getSummary().getHealsApplied());
            assertTrue(watch.completed() || waitCompleted(watch), "the stream ends after FINISHED");
        }

        // Replay: a late watcher gets the whole history, in order, ending with FINISHED.
        try (SessionEvents replay = new SessionEvents(sandboxStreams, session.getName())) {
            replay.await("FINISHED (replayed)", SessionEvent::hasFinished, Duration.ofSeconds(10));
            List<SessionEvent> all = replay.all();
            for (int i = 0; i < all.size(); i++) {
                assertEquals(i + 1, all.get(i).getSequence());
            }
            List<SessionEvent.KindCase> kinds = all.stream().map(SessionEvent::getKindCase).filter(k -> k != SessionEvent.KindCase.OUTPUT).toList();
            // Two guard events: the gate's decision, then the static stage's (docs/healguard.md §1).
            assertEquals(List.of(SessionEvent.KindCase.CRASHED, SessionEvent.KindCase.PROBE_RESULT, SessionEvent.KindCase.GUARD_EVENT,
                    SessionEvent.KindCase.GUARD_EVENT, SessionEvent.KindCase.HEAL_RESULT, SessionEvent.KindCase.FINISHED), kinds);
            assertEquals(List.of(GuardStage.GATE, GuardStage.STATIC), all.stream().filter(SessionEvent::hasGuardEvent)
                    .map(e -> e.getGuardEvent().getStage()).toList());
        }

        AttemptEvent applied = awaitPublished(attempt, AttemptEvent::hasHealApplied);
        assertEquals("t-sandbox-test", applied.getTenant());
        assertEquals("run-1", applied.getRunId());
        assertEquals(INSTANCE, applied.getInstanceId());
        assertEquals(CORRECT_HEAL, applied.getHealApplied().getCode());
        assertEquals("TypeError", applied.getHealApplied().getExceptionType());
        AttemptEvent gate = awaitPublished(attempt, AttemptEvent::hasGuardDecision);
        assertEquals(GuardVerdict.ACCEPTED, gate.getGuardDecision().getVerdict());

        Session closed = sandbox.closeSession(CloseSessionRequest.newBuilder().setName(session.getName()).build());
        assertEquals(Session.State.CLOSED, closed.getState());
    }

    @Test
    void healOutsideHealCoreIsRejectedAndNeverRuns() throws Exception {
        // Canaries go to the workspace's sources (relative to the process's working directory, the workspace): the one
        // place the isolated process can write and ReadFile can see.
        String execCanary = "exec-canary.txt";
        String importCanary = "import-canary.txt";
        String lambdaCanary = "lambda-canary.txt";
        String controlCanary = "control-canary.txt";
        // Each forbidden heal would create its canary if it ran; the construct named is what the gate must refuse.
        Map<String, String> forbidden = new LinkedHashMap<>();
        forbidden.put("exec", "exec(\"import pathlib; pathlib.Path('" + execCanary + "').write_text('ran')\")\n" + CORRECT_HEAL);
        forbidden.put("subprocess", "import subprocess\nsubprocess.run(['touch', '" + importCanary + "'])\n" + CORRECT_HEAL);
        forbidden.put("lambda", "import pathlib\ntouch = lambda p: pathlib.Path(p).write_text('ran')\ntouch('" + lambdaCanary + "')\n" + CORRECT_HEAL);
        String attempt = "attempt-" + UUID.randomUUID();
        // Guard off: the control heal's own file write must run, and this test is about the gate alone.
        Session session = create(attempt, GuardMode.OFF);
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            watch.await("CRASHED", SessionEvent::hasCrashed, CRASH_WAIT);
            // The canaries go to the program's working directory, its workspace (the sources are read-only to it).
            ProbeResult cwd = sandbox.probeSession(ProbeSessionRequest.newBuilder().setName(session.getName()).setCode("import os\nos.getcwd()").build());
            Path workspace = Path.of(cwd.getValueRepr().substring(1, cwd.getValueRepr().length() - 1));

            for (Map.Entry<String, String> heal : forbidden.entrySet()) {
                HealResult rejected = heal(session, heal.getValue());
                assertFalse(rejected.getApplied(), rejected.toString());
                assertEquals(Code.INVALID_ARGUMENT.getNumber(), rejected.getError().getCode());
                assertEquals("HEALCORE_REJECTED", SessionEvents.reason(rejected.getError()));
                assertTrue(rejected.getError().getMessage().contains(heal.getKey()), rejected.getError().getMessage());
                assertEquals(1, rejected.getGuardDecisionsCount());
                assertEquals(GuardStage.GATE, rejected.getGuardDecisions(0).getStage());
                assertEquals(GuardVerdict.REJECTED, rejected.getGuardDecisions(0).getVerdict());
            }
            for (String canary : List.of(execCanary, importCanary, lambdaCanary)) {
                assertFalse(Files.exists(workspace.resolve(canary)), "a rejected heal must never run: " + canary);
            }

            // Still paused at the same crash: the runtime never saw the rejected code.
            ProbeResult stillPaused = sandbox.probeSession(ProbeSessionRequest.newBuilder().setName(session.getName()).setCode("rc").build());
            assertEquals("1.0", stillPaused.getValueRepr());

            // Control: the same effect without the forbidden constructs passes the gate and really runs.
            HealResult control = heal(session, "import pathlib\npathlib.Path('" + controlCanary + "').write_text('ran')\n" + CORRECT_HEAL);
            assertTrue(control.getApplied(), control.toString());
            assertTrue(Files.exists(workspace.resolve(controlCanary)), "the control heal runs, so the canary method works");

            Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, FINISH_WAIT).getFinished();
            assertEquals(0, outcome.getSummary().getHealsRejected(), "the runtime must never have received the rejected heals: " + outcome);
            assertEquals(1, outcome.getSummary().getHealsApplied());
            assertTrue(outcome.getSummary().getProceeded(), outcome.toString());
            for (String canary : List.of(execCanary, importCanary, lambdaCanary)) {
                assertFalse(Files.exists(workspace.resolve(canary)), canary);
            }
        }
        AttemptEvent decision = awaitPublished(attempt, e -> e.hasGuardDecision() && e.getGuardDecision().getVerdict() == GuardVerdict.REJECTED);
        assertEquals(GuardStage.GATE, decision.getGuardDecision().getStage());
    }

    private boolean waitCompleted(SessionEvents watch) {
        for (int i = 0; i < 50 && !watch.completed(); i++) {
            SessionEvents.sleep(100);
        }
        return watch.completed();
    }

    private AttemptEvent awaitPublished(String attemptId, java.util.function.Predicate<AttemptEvent> matching) throws Exception {
        return events.await(e -> e.getAttemptId().equals(attemptId) && matching.test(e), Duration.ofSeconds(15)).orElseThrow(
                () -> new AssertionError("no matching AttemptEvent for " + attemptId + " on " + EXCHANGE + "; saw " + events.received()));
    }
}
