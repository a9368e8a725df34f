package io.healbench.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.proto.guard.v1.GuardDecision;
import io.healbench.proto.guard.v1.GuardMode;
import io.healbench.proto.guard.v1.GuardStage;
import io.healbench.proto.guard.v1.GuardVerdict;
import io.healbench.proto.outcome.v1.ResumeMode;
import io.healbench.proto.sandbox.v1.CreateSessionRequest;
import io.healbench.proto.sandbox.v1.HealResult;
import io.healbench.proto.sandbox.v1.HealSessionRequest;
import io.healbench.proto.sandbox.v1.Outcome;
import io.healbench.proto.sandbox.v1.ProbeSessionRequest;
import io.healbench.proto.sandbox.v1.Session;
import io.healbench.proto.sandbox.v1.SessionEvent;
import io.healbench.proto.sandbox.v1.Variant;
import io.healbench.testsupport.RabbitMqTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The static stage end to end (docs/healguard.md §1): real healrt exports the dry run's analysis, the real
 * guard-service decides, the sandbox commits or aborts by the session's guard mode. The instance's rgb_to_hsv
 * names a report directory, crashes, then creates the directory: a heal that rebinds {@code report} reaches
 * {@code os.makedirs}'s key input; one that only repairs {@code h} does not.
 */
@QuarkusTest
@WithTestResource(GuardServiceResource.class)
@WithTestResource(RabbitMqTestResource.class)
class SandboxStaticGuardTest extends SandboxSessionTest {

    static final String INSTANCE = "sandbox-colorsys-static-guard";
    static final Duration WAIT = Duration.ofSeconds(90);
    static final String CLEAN_HEAL = "h = 4.0+gc-rc";
    static final String TAINTED_HEAL = "h = 4.0+gc-rc\nreport = 'healguard-report/' + str(h)";

    private Session create(GuardMode guardMode) {
        Session session = sandbox.createSession(CreateSessionRequest.newBuilder()
                .setInstanceId(INSTANCE).setVariant(Variant.BUGGY).setIntercept(true).setGuardMode(guardMode)
                .setRequestId(UUID.randomUUID().toString()).putLabels("attempt_id", "static-" + guardMode).build());
        opened.add(session.getName());
        return session;
    }

    private HealResult heal(Session session, String code) {
        return sandbox.healSession(HealSessionRequest.newBuilder().setName(session.getName()).setCode(code).setResume(ResumeMode.SKIP).build());
    }

    private static GuardDecision staticDecision(HealResult result) {
        List<GuardDecision> stages = result.getGuardDecisionsList().stream().filter(d -> d.getStage() == GuardStage.STATIC).toList();
        assertEquals(1, stages.size(), result::toString);
        return stages.get(0);
    }

    @Test
    void enforceAbortsATaintedHealAndTheSessionStaysAtTheCrash() {
        Session session = create(GuardMode.ENFORCE);
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            watch.await("CRASHED", SessionEvent::hasCrashed, WAIT);

            HealResult aborted = heal(session, TAINTED_HEAL);
            assertFalse(aborted.getApplied(), aborted.toString());
            assertEquals("ABORTED", SessionEvents.reason(aborted.getError()));
            assertEquals(List.of(GuardStage.GATE, GuardStage.STATIC), aborted.getGuardDecisionsList().stream().map(GuardDecision::getStage).toList());
            GuardDecision rejected = staticDecision(aborted);
            assertEquals(GuardVerdict.REJECTED, rejected.getVerdict());
            assertTrue(rejected.getReason().startsWith("TAINTED: name:report reaches os.makedirs (name)"), rejected.getReason());
            assertTrue(aborted.getError().getMessage().contains("os.makedirs"), aborted.getError().getMessage());

            // Nothing was applied: the live frame still has the crash's values, and the session is still paused.
            String live = sandbox.probeSession(ProbeSessionRequest.newBuilder().setName(session.getName()).setCode("report").build()).getValueRepr();
            assertEquals("'healguard-report/hsv'", live);

            HealResult committed = heal(session, CLEAN_HEAL);
            assertTrue(committed.getApplied(), committed.toString());
            GuardDecision accepted = staticDecision(committed);
            assertEquals(GuardVerdict.ACCEPTED, accepted.getVerdict());
            assertTrue(accepted.getReason().startsWith("CLEAN"), accepted.getReason());

            Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, WAIT).getFinished();
            assertTrue(outcome.getSummary().getPassed(), outcome.toString());
            assertEquals(1, outcome.getSummary().getHealsApplied());
            assertEquals(1, outcome.getSummary().getHealsRejected(), "the aborted heal counts as rejected: " + outcome);
            long staticEvents = watch.all().stream().filter(e -> e.hasGuardEvent() && e.getGuardEvent().getStage() == GuardStage.STATIC).count();
            assertEquals(2, staticEvents, "each static decision is a session event");
        }
    }

    /**
     * The heal also writes None into {@code rc}, which nothing reads afterwards: guard-service finds it CLEAN, the
     * sandbox commits with {@code static_verdict: clean}, and healrt waives its bool/None rule for the heal, so the
     * directory creation in the same frame is not blocked (with any other verdict it would be, rule conservative).
     */
    @Test
    void aCleanVerdictReachesHealrtWithTheCommitAndWaivesTheBoolNoneRule() {
        Session session = create(GuardMode.ENFORCE);
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            watch.await("CRASHED", SessionEvent::hasCrashed, WAIT);

            HealResult committed = heal(session, CLEAN_HEAL + "\nrc = None");
            assertTrue(committed.getApplied(), committed.toString());
            assertTrue(staticDecision(committed).getReason().startsWith("CLEAN"), committed.toString());

            Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, WAIT).getFinished();
            assertTrue(outcome.getSummary().getPassed(), outcome.toString());
            List<GuardDecision> dynamic = watch.all().stream().filter(SessionEvent::hasGuardEvent).map(SessionEvent::getGuardEvent)
                    .filter(d -> d.getStage() == GuardStage.DYNAMIC).toList();
            assertTrue(dynamic.stream().anyMatch(d -> d.getVerdict() == GuardVerdict.WAIVED && d.getReason().equals("None")),
                    "the None source is recorded as waived: " + dynamic);
            assertTrue(dynamic.stream().anyMatch(d -> d.getVerdict() == GuardVerdict.WAIVED && d.getReason().startsWith("os.")),
                    "the directory creation the rule would have blocked is recorded: " + dynamic);
            assertTrue(dynamic.stream().noneMatch(d -> d.getVerdict() == GuardVerdict.BLOCKED), dynamic.toString());
        }
    }

    @Test
    void observeRecordsATaintedHealAndCommitsIt() {
        Session session = create(GuardMode.OBSERVE);
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            watch.await("CRASHED", SessionEvent::hasCrashed, WAIT);

            HealResult healed = heal(session, TAINTED_HEAL);
            assertTrue(healed.getApplied(), healed.toString());
            GuardDecision observed = staticDecision(healed);
            assertEquals(GuardVerdict.OBSERVED, observed.getVerdict());
            assertTrue(observed.getReason().startsWith("TAINTED: name:report"), observed.getReason());

            Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, WAIT).getFinished();
            assertTrue(outcome.getSummary().getPassed(), outcome.toString());
            assertEquals(0, outcome.getSummary().getHealsRejected());
        }
    }

    @Test
    void offRunsNoStaticStage() {
        Session session = create(GuardMode.OFF);
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            watch.await("CRASHED", SessionEvent::hasCrashed, WAIT);

            HealResult healed = heal(session, TAINTED_HEAL);
            assertTrue(healed.getApplied(), healed.toString());
            assertEquals(List.of(GuardStage.GATE), healed.getGuardDecisionsList().stream().map(GuardDecision::getStage).toList());
            assertTrue(watch.await("FINISHED", SessionEvent::hasFinished, WAIT).getFinished().getSummary().getPassed());
        }
    }
}
