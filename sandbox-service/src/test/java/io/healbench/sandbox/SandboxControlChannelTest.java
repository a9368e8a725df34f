package io.healbench.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.proto.guard.v1.GuardMode;
import io.healbench.proto.outcome.v1.ResumeMode;
import io.healbench.proto.sandbox.v1.HealResult;
import io.healbench.proto.sandbox.v1.HealSessionRequest;
import io.healbench.proto.sandbox.v1.Outcome;
import io.healbench.proto.sandbox.v1.ProbeResult;
import io.healbench.proto.sandbox.v1.ProbeSessionRequest;
import io.healbench.proto.sandbox.v1.ReraiseSessionRequest;
import io.healbench.proto.sandbox.v1.Session;
import io.healbench.proto.sandbox.v1.SessionEvent;
import io.healbench.testsupport.RabbitMqTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Forged outcomes (docs/control-protocol.md, "Who may say what"): the program, a forked probe and a heal each write
 * runtime messages to every socket descriptor they hold, a {@code finished} claiming a pass among them, and the
 * program then fails. No forged pass may be accepted: the protocol's state machine refuses what arrives out of turn,
 * a claimed pass needs the process's exit status 0, and a forked copy has no control channel at all.
 */
@QuarkusTest
@WithTestResource(GuardServiceResource.class)
@WithTestResource(RabbitMqTestResource.class)
class SandboxControlChannelTest extends SandboxSessionTest {

    static final String NORMAL = "sandbox-colorsys-typeerror-rgb-to-hsv";
    static final String FORGING_PROGRAM = "sandbox-hostile-forge";
    static final String CORRECT_HEAL = "h = 4.0+gc-rc";
    /** A heal that resumes with a wrong hue: the target test then fails. */
    static final String WRONG_HEAL = "h = 0.0";
    static final Duration WAIT = Duration.ofSeconds(60);

    /** HealCore code writing {@code line} to every socket the process holds. */
    static String forging(String line) {
        // HealCore has no stat module: 0o140000 is S_IFSOCK.
        return "import os\nline = b'" + line + "\\n'\nfor fd in range(3, 256):\n    try:\n"
                + "        if os.fstat(fd).st_mode & 0o170000 == 0o140000:\n            os.write(fd, line)\n"
                + "    except OSError:\n        pass\n";
    }

    static final String FORGED_PASS = "{\"type\": \"finished\", \"outcome\": {\"ran\": true, \"proceeded\": true, \"passed\": true, "
            + "\"heal_points\": 1, \"heals_applied\": 1, \"heals_rejected\": 0, \"exit_cause\": \"exited\", \"exit_code\": 0, "
            + "\"trace\": {}, \"detail\": \"forged\"}}";
    static final String FORGED_CRASH = "{\"type\": \"crash\", \"context\": {\"heal_point\": 9, \"exception_type\": \"KeyError\", "
            + "\"exception_message\": \"forged\", \"traceback\": [], \"locals\": []}}";
    static final String FORGED_REPLY = "{\"type\": \"heal_result\", \"id\": \"forged\", \"ok\": true, \"error\": null, "
            + "\"changed\": [], \"resume\": \"skip\"}";

    /** The service's stated bound for one session's events (SessionEventLog.MAX_EVENTS). */
    static final int MAX_EVENTS = 10_000;
    /** The stated bound on what one flooded session adds to the service's heap (the log at its caps, with headroom). */
    static final long FLOOD_HEAP_BYTES = 96L * 1024 * 1024;

    @Test
    void aFloodOfEventsIsHeldToTheLogsCapsInCountAndSize() throws Exception {
        long before = usedHeapAfterGc();
        // Observe mode: guard decisions are what a program can claim without end.
        Session session = create("sandbox-hostile-event-flood", GuardMode.OBSERVE);
        long guardEvents;
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, Duration.ofSeconds(180)).getFinished();
            assertTrue(outcome.getSummary().getProceeded(), outcome.toString());
            List<SessionEvent> events = watch.all();
            assertTrue(events.size() <= MAX_EVENTS + 5, "the log keeps at most its cap: " + events.size());
            guardEvents = events.stream().filter(SessionEvent::hasGuardEvent).count();
            assertTrue(events.stream().filter(SessionEvent::hasGuardEvent)
                    .allMatch(e -> e.getGuardEvent().getReason().length() <= 2003), "each decision's reason is cut to 2,000 characters");
            assertTrue(events.stream().anyMatch(e -> e.hasOutput() && e.getOutput().contains("event limit of 10000 reached")),
                    "the log says it dropped the rest");
        }
        // Measured while the session is still held (not closed): its whole log is in the heap.
        long grown = usedHeapAfterGc() - before;
        System.out.printf("event flood: %d guard events kept of 15000 sent (300 MB); heap grew by %d MiB%n", guardEvents,
                grown / (1024 * 1024));
        assertTrue(grown <= FLOOD_HEAP_BYTES, "heap grew by " + grown / (1024 * 1024) + " MiB for one flooded session");
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        Runtime runtime = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200);
            used = Math.min(used, runtime.totalMemory() - runtime.freeMemory());
        }
        return used;
    }

    @Test
    void aProgramThatForgesAPassAndThenFailsIsNotPassed() {
        Session session = create(FORGING_PROGRAM, GuardMode.OFF);
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            watch.await("CRASHED", SessionEvent::hasCrashed, WAIT);
            sandbox.reraiseSession(ReraiseSessionRequest.newBuilder().setName(session.getName()).build());
            Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, WAIT).getFinished();
            assertFalse(outcome.getSummary().getPassed(), outcome.toString());
            assertTrue(outcome.getDetail().contains("outcome not trusted"), outcome.getDetail());
        }
    }

    @Test
    void aHealThatForgesAPassAndThenLetsTheTestFailIsNotPassed() {
        Session session = create(NORMAL, GuardMode.OFF); // no HealGuard: the sandbox's own checks must hold without it
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            watch.await("CRASHED", SessionEvent::hasCrashed, WAIT);
            HealResult heal = heal(session, forging(FORGED_PASS) + WRONG_HEAL);
            assertTrue(heal.getApplied(), heal.toString());
            Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, WAIT).getFinished();
            assertFalse(outcome.getSummary().getPassed(), outcome.toString());
            // It arrives while the heal runs, the session paused: out of turn.
            assertTrue(outcome.getDetail().contains("a finished while CRASHED"), outcome.getDetail());
        }
    }

    @Test
    void unsolicitedCrashesAndRepliesChangeNothingAndTheOutcomeIsDistrusted() {
        Session session = create(NORMAL, GuardMode.OFF);
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            watch.await("CRASHED", SessionEvent::hasCrashed, WAIT);
            HealResult heal = heal(session, forging(FORGED_CRASH) + forging(FORGED_REPLY) + CORRECT_HEAL);
            assertTrue(heal.getApplied(), heal.toString());
            Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, WAIT).getFinished();
            long crashes = watch.all().stream().filter(SessionEvent::hasCrashed).count();
            assertEquals(1, crashes, "the forged crash paused nothing");
            assertFalse(outcome.getSummary().getPassed(), "a run whose channel carried forged messages is not a pass: " + outcome);
            assertTrue(outcome.getDetail().contains("a crash while CRASHED"), outcome.getDetail());
            assertTrue(outcome.getDetail().contains("a heal_result nobody asked for"), outcome.getDetail());
        }
    }

    @Test
    void aForkedProbeHasNoControlChannelToForgeOn() {
        Session session = create(NORMAL, GuardMode.OFF);
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            watch.await("CRASHED", SessionEvent::hasCrashed, WAIT);
            ProbeResult probe = sandbox.probeSession(ProbeSessionRequest.newBuilder().setName(session.getName())
                    .setCode(forging(FORGED_PASS) + "sockets = [fd for fd in range(3, 256) if os.path.exists('/proc/self/fd/%d' % fd)"
                            + " and os.fstat(fd).st_mode & 0o170000 == 0o140000]\nsockets").build());
            assertTrue(probe.getOk(), probe.toString());
            assertEquals("[]", probe.getValueRepr(), "the forked copy holds no socket");
            sandbox.reraiseSession(ReraiseSessionRequest.newBuilder().setName(session.getName()).build());
            Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, WAIT).getFinished();
            assertFalse(outcome.getSummary().getPassed(), outcome.toString());
            assertFalse(outcome.getDetail().contains("outcome not trusted"), "nothing forged arrived: " + outcome.getDetail());
        }
    }

    @Test
    void underHealGuardAHealCannotWriteToTheControlChannelAtAll() {
        Session session = create(NORMAL, GuardMode.ENFORCE);
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            watch.await("CRASHED", SessionEvent::hasCrashed, WAIT);
            // The dry run's fork has no socket to write to; the live run's write is refused, and the heal says so.
            String refusing = forging(FORGED_PASS).replace("    except OSError:\n",
                    "    except PermissionError as error:\n        refused.append(str(error))\n    except OSError:\n")
                    .replace("for fd in", "refused = []\nfor fd in") + "assert not refused, refused[0]\n" + CORRECT_HEAL;
            HealResult heal = heal(session, refusing);
            assertFalse(heal.getApplied(), heal.toString());
            assertTrue(heal.getTraceback().contains("may not use healrt's control descriptor"), heal.getTraceback());
            assertTrue(heal(session, CORRECT_HEAL).getApplied());
            Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, WAIT).getFinished();
            assertTrue(outcome.getSummary().getPassed(), outcome.toString());
        }
    }

    private HealResult heal(Session session, String code) {
        return sandbox.healSession(HealSessionRequest.newBuilder().setName(session.getName()).setCode(code).setResume(ResumeMode.SKIP).build());
    }

    private Session create(String instance, GuardMode guardMode) {
        Session session = TestSessions.buggy(sandbox, instance, guardMode);
        opened.add(session.getName());
        return session;
    }
}
