package io.healbench.sandbox;

import io.healbench.proto.outcome.v1.ExitCause;
import io.healbench.sandbox.service.process.GroupProcess;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.proto.guard.v1.GuardMode;
import io.healbench.proto.outcome.v1.ResumeMode;
import io.healbench.proto.sandbox.v1.CloseSessionRequest;
import io.healbench.proto.sandbox.v1.CrashContext;
import io.healbench.proto.sandbox.v1.CreateSessionRequest;
import io.healbench.proto.sandbox.v1.HealResult;
import io.healbench.proto.sandbox.v1.HealSessionRequest;
import io.healbench.proto.sandbox.v1.Outcome;
import io.healbench.proto.sandbox.v1.ProbeResult;
import io.healbench.proto.sandbox.v1.ProbeSessionRequest;
import io.healbench.proto.sandbox.v1.Session;
import io.healbench.proto.sandbox.v1.SessionEvent;
import io.healbench.proto.sandbox.v1.Variant;
import io.healbench.sandbox.config.SandboxPaths;
import io.healbench.sandbox.service.workspace.WorkspaceMaterializer;
import io.healbench.testsupport.RabbitMqTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile code under the real isolation (bwrap, prlimit, a uid per session), over real gRPC, with real CPython 3.11.7,
 * the real healrt and the real guard-service. The hostile programs are colorsys with a patch that does the hostile thing
 * when test_hsv_values reaches the blue-hue branch. Every case must be contained, and the sandbox must then still serve
 * a normal session to the end.
 */
@QuarkusTest
@TestProfile(SandboxHostileCodeTest.HostileLimits.class)
@WithTestResource(GuardServiceResource.class)
@WithTestResource(RabbitMqTestResource.class)
class SandboxHostileCodeTest extends SandboxSessionTest {

    /** Small limits so each case ends in seconds; the normal colorsys session stays well inside them. */
    public static class HostileLimits implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "healbench.sandbox.workspace-root", System.getProperty("java.io.tmpdir") + "/healbench/test-hostile-workspaces",
                    "healbench.sandbox.wall-clock-limit", WALL_CLOCK_SECONDS + "s",
                    "healbench.sandbox.heal-timeout", "3s",
                    "healbench.sandbox.probe-timeout", "3s",
                    "healbench.sandbox.limits.processes", Integer.toString(PROCESS_LIMIT),
                    "healbench.sandbox.limits.cpu-seconds", Integer.toString(CPU_SECONDS),
                    "healbench.sandbox.limits.session-memory-bytes", Long.toString(SESSION_MEMORY_BYTES),
                    "healbench.sandbox.limits.workspace-bytes", Long.toString(WORKSPACE_BYTES));
        }
    }

    /*
     * The CPU limit is counted in CPU time, the wall clock in real time: on a loaded CI machine a spinning
     * program gets a fraction of a core, so the wall clock must leave room for CPU_SECONDS at ~1/9 core.
     * The heaviest legitimate session here (the stdout fixture: pytest capturing and then reporting 100 MiB)
     * reached 5 s of CPU time in a fresh clone, where REFERENCE runs were being recorded on the other core of a
     * 2-vCPU machine (CPU time inflates when both vCPUs are busy); 10 s leaves it twice its measured need.
     */
    static final int CPU_SECONDS = 10;
    static final int WALL_CLOCK_SECONDS = 90;
    static final int PROCESS_LIMIT = 32;
    /** The caps of a whole session; the caps fixture's program goes past both, each piece under the per-process limits. */
    static final long SESSION_MEMORY_BYTES = 512L * 1024 * 1024;
    static final long WORKSPACE_BYTES = 128L * 1024 * 1024;
    /** The port the escape fixture's patched colorsys dials (see its bug.patch). */
    static final int PROGRAM_PORT = 18177;
    static final String NORMAL = "sandbox-colorsys-typeerror-rgb-to-hsv";
    static final String CORRECT_HEAL = "h = 4.0+gc-rc";
    static final Duration WAIT = Duration.ofSeconds(60);
    /** The pristine stdlib of the subject's interpreter (python3, which the fixtures run on): a tempting place to plant code. */
    static final Path STDLIB = stdlibOfPython3();

    @Inject
    SandboxPaths paths;

    @Inject
    WorkspaceMaterializer materializer;

    @AfterEach
    void closeSessionsAndCheckNothingSurvives() throws IOException {
        closeSessions();
        // Had isolation failed, the escape fixture's writes would have landed here; never leave them behind.
        for (Path canary : programCanaries()) {
            Files.deleteIfExists(canary);
        }
        awaitNoSessionProcesses();
    }

    /** Where the escape fixture's program tries to write (see its bug.patch). */
    private List<Path> programCanaries() {
        return List.of(STDLIB.resolve("hostile_escape_program.txt"), materializer.workspaceDirectory().resolve("hostile_escape_program.txt"),
                Path.of("/tmp/healbench_hostile_escape_program.txt"));
    }

    // ------------------------------------------------------------------ network

    @Test
    void theProgramAProbeAndAHealCannotOpenATcpConnection() throws Exception {
        try (Listener listener = new Listener(PROGRAM_PORT)) {
            Session session = create("sandbox-hostile-escape", true);
            try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
                CrashContext crash = watch.await("CRASHED", SessionEvent::hasCrashed, WAIT).getCrashed();
                String attempts = local(crash, "escape");
                assertTrue(attempts.contains("connect:"), "the program tried: " + attempts);
                assertFalse(attempts.contains("connect:CONNECTED"), attempts);

                String connect = "import socket\ntry:\n    socket.create_connection(('127.0.0.1', " + PROGRAM_PORT + "), timeout=2).close()\n"
                        + "    result = 'CONNECTED'\nexcept OSError as error:\n    result = type(error).__name__\nresult";
                for (boolean inplace : List.of(false, true)) {
                    ProbeResult probe = probe(session, connect, inplace);
                    assertTrue(probe.getOk(), probe.toString());
                    assertFalse(probe.getValueRepr().contains("CONNECTED"), "inplace=" + inplace + ": " + probe);
                }

                HealResult socketHeal = heal(session, "import socket\nsocket.create_connection(('127.0.0.1', " + PROGRAM_PORT + "))\n" + CORRECT_HEAL);
                assertFalse(socketHeal.getApplied(), socketHeal.toString());
                assertEquals("HEALCORE_REJECTED", SessionEvents.reason(socketHeal.getError()));
                assertTrue(socketHeal.getError().getMessage().contains("socket"), socketHeal.getError().getMessage());

                // HealCore allows os, and os.system starts a shell: a legal path to the network, contained by the sandbox.
                HealResult shellHeal = heal(session, "import os\nos.system(\"bash -c 'echo hostile > /dev/tcp/127.0.0.1/"
                        + PROGRAM_PORT + "'\")\n" + CORRECT_HEAL);
                assertTrue(shellHeal.getApplied(), shellHeal.toString());

                Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, WAIT).getFinished();
                assertTrue(outcome.getSummary().getPassed(), outcome.toString());
            }
            assertEquals(0, listener.connections(), "no connection may reach the host's loopback");
        }
        assertServesANormalSession();
    }

    // ------------------------------------------------------------------ filesystem

    @Test
    void theProgramAProbeAndAHealCannotWriteOutsideTheWorkspace(@TempDir Path testTmp) throws Exception {
        Path target = Path.of("target").toAbsolutePath();
        List<Path> canaries = new ArrayList<>(programCanaries());
        canaries.addAll(List.of(
                STDLIB.resolve("hostile_escape_probe.txt"),
                target.resolve("hostile_escape_probe.txt"),
                testTmp.resolve("probe/hostile_escape_probe.txt"),
                // The pristine stdlib is bound read-only into every sandbox wherever the checkout lives
                // (a checkout under /tmp is hidden by the private /tmp instead).
                STDLIB.resolve("hostile_escape_heal.txt"),
                testTmp.resolve("heal/hostile_escape_heal.txt")));
        try {
            Session session = create("sandbox-hostile-escape", true);
            try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
                CrashContext crash = watch.await("CRASHED", SessionEvent::hasCrashed, WAIT).getCrashed();
                String attempts = local(crash, "escape");
                assertFalse(attempts.contains("stdlib:WRITTEN"), attempts);
                assertFalse(attempts.contains("workspace-root:WRITTEN"), attempts);
                assertTrue(attempts.contains("tmp:WRITTEN"), "/tmp is writable, but private: " + attempts);

                for (boolean inplace : List.of(false, true)) {
                    StringBuilder probe = new StringBuilder("import os\nresults = []\n");
                    for (Path canary : canaries.subList(3, 6)) {
                        probe.append("try:\n    os.makedirs(r'").append(canary.getParent()).append("', exist_ok=True)\n")
                                .append("    open(r'").append(canary).append("', 'w').write('escaped')\n")
                                .append("    results.append('WRITTEN')\nexcept OSError as error:\n    results.append(type(error).__name__)\n");
                    }
                    probe.append("results");
                    ProbeResult result = probe(session, probe.toString(), inplace);
                    assertTrue(result.getOk(), result.toString());
                    assertTrue(result.getValueRepr().startsWith("["), result.toString());
                }

                HealResult readOnly = heal(session, "import pathlib\npathlib.Path(r'" + canaries.get(6) + "').write_text('escaped')\n" + CORRECT_HEAL);
                assertFalse(readOnly.getApplied(), "the dry run hits the read-only filesystem: " + readOnly);
                assertEquals("RAISED", SessionEvents.reason(readOnly.getError()));
                assertTrue(readOnly.getTraceback().contains("Read-only file system"), readOnly.getTraceback());

                HealResult privateTmp = heal(session, "import os\nimport pathlib\nos.makedirs(r'" + canaries.get(7).getParent()
                        + "', exist_ok=True)\npathlib.Path(r'" + canaries.get(7) + "').write_text('escaped')\n" + CORRECT_HEAL);
                assertTrue(privateTmp.getApplied(), "the session's own /tmp is writable: " + privateTmp);

                Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, WAIT).getFinished();
                assertTrue(outcome.getSummary().getPassed(), outcome.toString());
            }
            for (Path canary : canaries) {
                assertFalse(Files.exists(canary), "written outside the workspace: " + canary);
            }
        } finally {
            for (Path canary : canaries) {
                Files.deleteIfExists(canary);
            }
        }
        assertServesANormalSession();
    }

    // ------------------------------------------------------------------ processes

    @Test
    void aForkBombInTheProgramIsContainedWhileAnotherSessionRunsAndEndsAtTheWallClock() throws Exception {
        Session bomb = create("sandbox-hostile-fork-bomb", true);
        try (SessionEvents watch = new SessionEvents(sandboxStreams, bomb.getName())) {
            assertFillsItsProcessLimit();
            // The machine stays usable: the host can start processes and another session runs to its end meanwhile.
            Process host = new ProcessBuilder("true").start();
            assertEquals(0, host.waitFor(), "the host can still start processes");
            assertServesANormalSession();
            assertTrue(largestSandboxUidCount() <= PROCESS_LIMIT, "still capped");

            Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, Duration.ofSeconds(WALL_CLOCK_SECONDS + 30)).getFinished();
            assertEquals(ExitCause.TIMEOUT, outcome.getSummary().getExitCause(), outcome.toString());
        }
        awaitNoSessionProcesses();
    }

    @Test
    void aForkBombInAProbeIsContainedAndDiesWithTheSession() {
        Session session = create(NORMAL, true);
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            watch.await("CRASHED", SessionEvent::hasCrashed, WAIT);
            ProbeResult bomb = probe(session, "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass", false);
            assertFalse(bomb.getOk(), bomb.toString());
            assertTrue(bomb.getError().contains("timed out"), bomb.toString());
            // The probe's own child was killed at the timeout; its offspring live on in the session, capped.
            assertFillsItsProcessLimit();

            sandbox.closeSession(CloseSessionRequest.newBuilder().setName(session.getName()).build());
            Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, WAIT).getFinished();
            assertEquals(ExitCause.KILLED, outcome.getSummary().getExitCause(), outcome.toString());
        }
        awaitNoSessionProcesses();
        assertServesANormalSession();
    }

    @Test
    void anEndlessHealTimesOutAndLeavesTheLiveStateAndTheSessionUsable() {
        Session session = create(NORMAL, true);
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            watch.await("CRASHED", SessionEvent::hasCrashed, WAIT);
            long started = System.nanoTime();
            HealResult endless = heal(session, "rc = 2.0\nwhile True:\n    gc = gc + 1.0");
            long tookMs = (System.nanoTime() - started) / 1_000_000;
            assertFalse(endless.getApplied(), endless.toString());
            assertEquals("TIMEOUT", SessionEvents.reason(endless.getError()), endless.toString());
            assertTrue(tookMs >= 3000 && tookMs < 8000, "the 3 s heal timeout applies: " + tookMs + " ms");

            ProbeResult live = probe(session, "(rc, gc)", false);
            assertEquals("(1.0, 1.0)", live.getValueRepr(), "the live state is unchanged");
            healToAPass(session, watch);
        }
        assertServesANormalSession();
    }

    // ------------------------------------------------------------------ output, memory, CPU

    @Test
    void hundredMegabytesOfStdoutAreCappedAndTheSessionFinishes() {
        Session session = create("sandbox-hostile-stdout", true);
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, WAIT).getFinished();
            assertFalse(outcome.getSummary().getPassed(), "the fixture returns a wrong hue: " + outcome);
            assertTrue(outcome.getSummary().getProceeded(), outcome.toString());
            List<String> output = watch.all().stream().filter(SessionEvent::hasOutput).map(SessionEvent::getOutput).toList();
            String last = output.get(output.size() - 1);
            assertTrue(last.contains("output limit of 1048576 bytes reached"), "capped: " + last);
            long kept = output.stream().mapToLong(s -> s.getBytes(StandardCharsets.UTF_8).length).sum();
            assertTrue(kept <= 1048576 + last.length(), kept + " bytes kept");
            assertTrue(output.stream().anyMatch(s -> s.contains("xxxxxxxxxx")), "the printed output did reach the pipe");
        }
        assertServesANormalSession();
    }

    @Test
    void aFourGigabyteAllocationIsRefusedInTheProgramAProbeAndAHeal() {
        // healrt never intercepts MemoryError, so in the program it ends the test: reported, the session ends.
        Session program = create("sandbox-hostile-memory", true);
        try (SessionEvents watch = new SessionEvents(sandboxStreams, program.getName())) {
            Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, WAIT).getFinished();
            assertFalse(outcome.getSummary().getPassed(), outcome.toString());
            assertTrue(outcome.getDetail().contains("MemoryError"), outcome.toString());
            assertTrue(watch.all().stream().noneMatch(SessionEvent::hasCrashed), "not a heal point");
        }

        Session session = create(NORMAL, true);
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            watch.await("CRASHED", SessionEvent::hasCrashed, WAIT);
            for (boolean inplace : List.of(false, true)) {
                ProbeResult probe = probe(session, "len(bytearray(4 * 1024 ** 3))", inplace);
                assertFalse(probe.getOk(), probe.toString());
                assertTrue(probe.getError().contains("MemoryError"), probe.toString());
            }
            HealResult greedy = heal(session, "block = bytearray(4 * 1024 ** 3)\n" + CORRECT_HEAL);
            assertFalse(greedy.getApplied(), greedy.toString());
            assertEquals("RAISED", SessionEvents.reason(greedy.getError()));
            assertTrue(greedy.getTraceback().contains("MemoryError"), greedy.toString());

            healToAPass(session, watch);
        }
        assertServesANormalSession();
    }

    @Test
    void aSpinningProgramIsEndedByTheCpuLimitWithThatCause() {
        Session session = create("sandbox-hostile-cpu", true);
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, Duration.ofSeconds(WALL_CLOCK_SECONDS + 10)).getFinished();
            assertEquals(ExitCause.LIMIT, outcome.getSummary().getExitCause(), outcome.toString());
            assertTrue(outcome.getDetail().startsWith("cpu: SIGXCPU"), outcome.getDetail());
            assertEquals(128 + 24, outcome.getExitCode());
        }
        assertServesANormalSession();
    }

    // ------------------------------------------------------------------ whole-session caps

    @Test
    void theSessionsMemoryAndDiskStayWithinItsCapsWhateverThePerProcessLimitsAllow() throws Exception {
        Session session = create("sandbox-hostile-session-caps", false); // it never crashes: nothing to intercept
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, WAIT).getFinished();
            assertTrue(outcome.hasResources(), outcome.toString());
            var used = outcome.getResources();
            assertFalse(used.getMemoryAccounting().equals("none"), "no whole-session memory cap on this machine: " + used);
            assertEquals(SESSION_MEMORY_BYTES, used.getMemoryCapBytes(), used.toString());
            assertTrue(used.getPeakMemoryBytes() > 0 && used.getPeakMemoryBytes() <= SESSION_MEMORY_BYTES, used.toString());
            assertTrue(used.getOomKills() >= 1, "four children of 200 MiB cannot all fit in 512 MiB: " + used);
            assertEquals(WORKSPACE_BYTES, used.getWorkspaceCapBytes(), used.toString());
            assertTrue(used.getWorkspaceBytes() > 0 && used.getWorkspaceBytes() <= WORKSPACE_BYTES, used.toString());

            Path log = materializer.workspaceDirectory().resolve(workspaceName(session)).resolve("caps.log");
            String written = Files.readString(log);
            assertTrue(written.contains("No space left on device"), "192 MiB of files in a 128 MiB workspace: " + written + "; " + outcome);
            int mib = Integer.parseInt(written.replaceAll("(?s).*disk: (\\d+) MiB.*", "$1"));
            assertTrue(mib < 128, written);
            assertTrue(written.contains("child: 9\n"), "a child killed at the memory cap (SIGKILL): " + written + "; " + outcome);
        }
        assertServesANormalSession();
    }

    /** The directory name of a session's workspace: what the program sees as its working directory. */
    private String workspaceName(Session session) throws IOException {
        try (Stream<Path> workspaces = Files.list(materializer.workspaceDirectory())) {
            return workspaces.filter(ws -> Files.exists(ws.resolve("caps.log"))).findFirst()
                    .orElseThrow(() -> new AssertionError("no workspace holds caps.log for " + session.getName()))
                    .getFileName().toString();
        }
    }

    // ------------------------------------------------------------------ helpers

    private Session create(String instance, boolean intercept) {
        // Guard off: these tests show what the OS-level isolation stops, so HealGuard must not stop the effects first.
        Session session = sandbox.createSession(CreateSessionRequest.newBuilder().setInstanceId(instance).setVariant(Variant.BUGGY)
                .setIntercept(intercept).setGuardMode(GuardMode.OFF).setRequestId(UUID.randomUUID().toString()).build());
        opened.add(session.getName());
        return session;
    }

    private ProbeResult probe(Session session, String code, boolean inplace) {
        return sandbox.probeSession(ProbeSessionRequest.newBuilder().setName(session.getName()).setCode(code).setInplace(inplace).build());
    }

    private HealResult heal(Session session, String code) {
        return sandbox.healSession(HealSessionRequest.newBuilder().setName(session.getName()).setCode(code).setResume(ResumeMode.SKIP).build());
    }

    private static String local(CrashContext crash, String name) {
        return crash.getLocalsList().stream().filter(v -> v.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no local '" + name + "' in " + crash.getLocalsList())).getRepr();
    }

    /** The correct heal applies at the current crash and the test then passes. */
    private void healToAPass(Session session, SessionEvents watch) {
        HealResult healed = heal(session, CORRECT_HEAL);
        assertTrue(healed.getApplied(), healed.toString());
        Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, WAIT).getFinished();
        assertTrue(outcome.getSummary().getPassed(), outcome.toString());
    }

    /** A normal session, healed, runs to a pass: the sandbox is still serving after the hostile case. */
    private void assertServesANormalSession() {
        Session session = create(NORMAL, true);
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            watch.await("CRASHED", SessionEvent::hasCrashed, WAIT);
            healToAPass(session, watch);
        }
        sandbox.closeSession(CloseSessionRequest.newBuilder().setName(session.getName()).build());
        opened.remove(session.getName());
    }

    /** Host processes that belong to a session of this test: their command line names a workspace of it. */
    private List<Long> sessionProcesses() {
        String root = paths.workspaceRoot().toString();
        try (Stream<Path> entries = Files.list(Path.of("/proc"))) {
            return entries.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
                    .filter(p -> commandLine(p).contains(root))
                    .map(p -> Long.parseLong(p.getFileName().toString()))
                    .toList();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Some session's uid reaches the process limit within seconds, and no uid ever exceeds it. */
    private void assertFillsItsProcessLimit() {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        int count = 0;
        while (System.nanoTime() < deadline && count < PROCESS_LIMIT) {
            count = largestSandboxUidCount();
            assertTrue(count <= PROCESS_LIMIT, count + " processes of one session, over the limit of " + PROCESS_LIMIT);
            SessionEvents.sleep(100);
        }
        assertEquals(PROCESS_LIMIT, count, "the bomb fills its process limit");
    }

    /**
     * The most processes any one sandbox uid has. Each session runs as its own uid (bwrap's own two processes stay
     * root and are not counted), and RLIMIT_NPROC caps exactly that count.
     */
    private int largestSandboxUidCount() {
        Map<Long, Integer> perUid = new HashMap<>();
        for (long pid : sessionProcesses()) {
            long uid = GroupProcess.realUid(Path.of("/proc", Long.toString(pid), "status"));
            if (uid > 0) {
                perUid.merge(uid, 1, Integer::sum);
            }
        }
        return perUid.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    }

    private static String commandLine(Path proc) {
        try {
            return new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            return "";
        }
    }

    private void awaitNoSessionProcesses() {
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        List<Long> left = sessionProcesses();
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            SessionEvents.sleep(200);
            left = sessionProcesses();
        }
        assertEquals(List.of(), left, "no process of a closed session may survive");
    }

    /** Counts the TCP connections reaching a port of the host's loopback. */
    private static final class Listener implements AutoCloseable {
        private final ServerSocket server;
        private final AtomicInteger connections = new AtomicInteger();
        private final Thread acceptor;

        Listener(int port) throws IOException {
            server = new ServerSocket(port, 50, InetAddress.getByName("127.0.0.1"));
            server.setSoTimeout(200);
            acceptor = new Thread(this::accept, "hostile-listener");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        private void accept() {
            while (!server.isClosed()) {
                try (Socket ignored = server.accept()) {
                    connections.incrementAndGet();
                } catch (SocketTimeoutException e) {
                    // poll again
                } catch (IOException e) {
                    return;
                }
            }
        }

        int connections() {
            return connections.get();
        }

        @Override
        public void close() throws Exception {
            server.close();
            acceptor.join(2000);
        }
    }

    private static Path stdlibOfPython3() {
        try {
            Process python = new ProcessBuilder("python3", "-c", "import sysconfig; print(sysconfig.get_path('stdlib'))")
                    .redirectErrorStream(true).start();
            String out = new String(python.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
            if (python.waitFor() != 0) {
                throw new IllegalStateException("python3 cannot tell its stdlib: " + out);
            }
            return Path.of(out);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
