package io.healbench.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.healbench.proto.outcome.v1.ResumeMode;
import io.healbench.proto.sandbox.v1.CrashContext;
import io.healbench.proto.sandbox.v1.CreateSessionRequest;
import io.healbench.proto.sandbox.v1.FileEntry;
import io.healbench.proto.sandbox.v1.GetReferenceRunRequest;
import io.healbench.proto.sandbox.v1.HealResult;
import io.healbench.proto.sandbox.v1.HealSessionRequest;
import io.healbench.proto.sandbox.v1.ListFilesRequest;
import io.healbench.proto.sandbox.v1.Outcome;
import io.healbench.proto.sandbox.v1.ProbeResult;
import io.healbench.proto.sandbox.v1.ProbeSessionRequest;
import io.healbench.proto.sandbox.v1.ReferenceRun;
import io.healbench.proto.sandbox.v1.SearchCodeRequest;
import io.healbench.proto.sandbox.v1.SearchCodeResponse;
import io.healbench.proto.sandbox.v1.Session;
import io.healbench.proto.sandbox.v1.SessionEvent;
import io.healbench.proto.sandbox.v1.Variant;
import io.healbench.sandbox.service.reference.ReferenceCache;
import io.healbench.sandbox.service.trace.TraceSimilarity;
import io.healbench.testsupport.RabbitMqTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real stdlib code on two interpreters (pyenv 3.11.7 and 3.12.1), over real gRPC, under the real healrt, heals gated
 * by the real guard-service: resume modes, probe and heal isolation, successive heal points, reference runs and TS.
 */
@QuarkusTest
@WithTestResource(GuardServiceResource.class)
@WithTestResource(RabbitMqTestResource.class)
class SandboxRealCodeTest extends SandboxSessionTest {

    static final Duration WAIT = Duration.ofSeconds(120);
    /** median() of test_even_ints, [1..6]: the crash is in `return (data[i - 1] + data[i]) / 2` with i = '3' (line 570 / 622). */
    static final String MEDIAN = "sandbox-statistics-median-index-str-";
    /** rgb_to_hsv() of test_hsv_values: rc is a str, three crashes in one execution. */
    static final String COLORSYS = "sandbox-colorsys-rc-str-";
    static final String REFERENCE_ONLY = "sandbox-reference-colorsys-py3121";
    /** Its fix patch fixes nothing: its REFERENCE run fails. */
    static final String FAILING_REFERENCE = "sandbox-reference-fails";

    @Inject
    ReferenceCache referenceCache;

    private Session create(String instance) {
        Session session = sandbox.createSession(CreateSessionRequest.newBuilder().setInstanceId(instance).setVariant(Variant.BUGGY)
                .setIntercept(true).setRequestId(UUID.randomUUID().toString()).build());
        opened.add(session.getName());
        return session;
    }

    private HealResult heal(Session session, String code, ResumeMode mode) {
        return sandbox.healSession(HealSessionRequest.newBuilder().setName(session.getName()).setCode(code).setResume(mode).build());
    }

    private ProbeResult probe(Session session, String code) {
        ProbeResult result = sandbox.probeSession(ProbeSessionRequest.newBuilder().setName(session.getName()).setCode(code).build());
        assertTrue(result.getOk(), result.toString());
        return result;
    }

    private static CrashContext crash(SessionEvents watch, int healPoint) {
        return watch.await("CRASHED #" + healPoint, e -> e.hasCrashed() && e.getCrashed().getHealPoint() == healPoint, WAIT).getCrashed();
    }

    private static String python(String tag) {
        return tag.equals("py3121") ? "3.12.1" : "3.11.7";
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
            "py3117, SKIP, _return_ = (data[int(i) - 1] + data[int(i)]) / 2",
            "py3117, RETRY, i = int(i)",
            "py3117, RETURN, _return_ = (data[int(i) - 1] + data[int(i)]) / 2",
            "py3121, SKIP, _return_ = (data[int(i) - 1] + data[int(i)]) / 2",
            "py3121, RETRY, i = int(i)",
            "py3121, RETURN, _return_ = (data[int(i) - 1] + data[int(i)]) / 2"})
    void eachResumeModeHealsARealCrashAndTheRunProceeds(String tag, ResumeMode mode, String code) {
        Session session = create(MEDIAN + tag);
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            CrashContext crash = crash(watch, 1);
            assertEquals("TypeError", crash.getExceptionType());
            assertEquals(tag.equals("py3121") ? 622 : 570, crash.getStatement().getLine());
            assertEquals("return", crash.getStatement().getKind());
            assertEquals("'" + python(tag) + "'", probe(session, "import sys\nsys.version.split()[0]").getValueRepr(),
                    "the instance's interpreter runs the session");

            HealResult healed = heal(session, code, mode);
            assertTrue(healed.getApplied(), healed.toString());
            assertEquals(mode, healed.getResumed());

            Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, WAIT).getFinished();
            assertTrue(outcome.getSummary().getProceeded(), outcome.toString());
            assertTrue(outcome.getSummary().getPassed(), "median must return 3.5 after the heal: " + outcome);
            assertEquals(1, outcome.getSummary().getHealPoints());
            assertEquals(1, outcome.getSummary().getHealsApplied());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"py3117", "py3121"})
    void probeMutationsOfAListADictAndAnAttributeLeaveTheLiveObjectsUnchanged(String tag) {
        Session session = create(MEDIAN + tag);
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            crash(watch, 1);
            String state = "(len(data), data[0], 'HEALBENCH_PROBE' in median.__globals__, hasattr(median, 'healbench_probe'))";
            assertEquals("(6, 1, False, False)", probe(session, state).getValueRepr());

            ProbeResult mutating = probe(session, "data.append(99)\ndata[0] = -1\nmedian.__globals__['HEALBENCH_PROBE'] = 1\n"
                    + "median.healbench_probe = 1\n" + state);
            assertEquals("(7, -1, True, True)", mutating.getValueRepr(), "the probe saw its own mutations");
            assertEquals("(6, 1, False, False)", probe(session, state).getValueRepr(), "the live list, dict and attribute are untouched");

            // In place, the same mutation would reach the live list: with HealGuard on, healrt refuses to run it.
            ProbeResult inplace = sandbox.probeSession(ProbeSessionRequest.newBuilder().setName(session.getName()).setInplace(true).setCode("data.append(7)").build());
            assertFalse(inplace.getOk(), inplace.toString());
            assertTrue(inplace.getError().contains("allowed only with HealGuard off"), inplace.toString());
            assertEquals("(6, 1, False, False)", probe(session, state).getValueRepr());

            assertTrue(heal(session, "i = int(i)", ResumeMode.RETRY).getApplied());
            Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, WAIT).getFinished();
            assertTrue(outcome.getSummary().getPassed(), outcome.toString());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"py3117", "py3121"})
    void aHealThatRaisesHalfWayLeavesTheLiveStateUnchanged(String tag) {
        Session session = create(MEDIAN + tag);
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            crash(watch, 1);
            String state = "(len(data), hasattr(median, 'healbench_heal'), type(i).__name__)";
            assertEquals("(6, False, 'str')", probe(session, state).getValueRepr());

            HealResult failed = heal(session, "data.append(99)\nmedian.healbench_heal = 1\ni = int(i)\nboom = 1 / 0", ResumeMode.RETRY);
            assertFalse(failed.getApplied(), failed.toString());
            assertEquals("RAISED", SessionEvents.reason(failed.getError()), failed.toString());
            assertTrue(failed.getTraceback().contains("ZeroDivisionError"), failed.getTraceback());
            assertEquals("(6, False, 'str')", probe(session, state).getValueRepr(), "nothing of the failed heal reached the live process");

            assertTrue(heal(session, "i = int(i)", ResumeMode.RETRY).getApplied(), "still paused at the same crash, and healable");
            Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, WAIT).getFinished();
            assertTrue(outcome.getSummary().getPassed(), outcome.toString());
            assertEquals(1, outcome.getSummary().getHealPoints());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"py3117", "py3121"})
    void successiveCrashesInOneExecutionAreNumberedHealPointsAndTheOutcomeCarriesTs(String tag) {
        Session session = create(COLORSYS + tag);
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            CrashContext first = crash(watch, 1);
            assertEquals(141, first.getStatement().getLine(), "blue: the else branch");
            assertTrue(heal(session, "rc = float(rc)", ResumeMode.RETRY).getApplied());

            CrashContext second = crash(watch, 2);
            assertEquals(139, second.getStatement().getLine(), "green: the g == maxc branch");
            assertTrue(heal(session, "h = 2.0+float(rc)-bc", ResumeMode.SKIP).getApplied());

            CrashContext third = crash(watch, 3);
            assertEquals(139, third.getStatement().getLine(), "cyan");
            assertTrue(heal(session, "_return_ = (((2.0+float(rc)-bc)/6.0) % 1.0, s, v)", ResumeMode.RETURN).getApplied());

            Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, WAIT).getFinished();
            assertTrue(outcome.getSummary().getPassed(), outcome.toString());
            assertEquals(3, outcome.getSummary().getHealPoints());
            assertEquals(3, outcome.getSummary().getHealsApplied());

            ReferenceRun reference = sandbox.getReferenceRun(GetReferenceRunRequest.newBuilder().setName("instances/" + COLORSYS + tag + "/referenceRun").build());
            assertTrue(reference.getOutcome().getSummary().getPassed(), reference.toString());
            assertEquals(0, reference.getOutcome().getSummary().getHealPoints());
            assertTrue(outcome.getReferencePassed());
            TraceSimilarity.Result expected = TraceSimilarity.compare(outcome.getTraceMap(), reference.getOutcome().getTraceMap());
            assertEquals(expected.similarity(), outcome.getTraceSimilarity(), 1e-12, outcome.getDetail());
            assertEquals(expected.overlap(), outcome.getTraceOverlap(), 1e-12);
            assertTrue(outcome.getTraceSimilarity() > 0.5, "a correct heal follows the reference closely: " + outcome.getTraceSimilarity());
            assertTrue(outcome.getTraceSimilarity() < 1.0, "the return heal skipped line 140's modulo in one call, so not all counts agree");
        }
    }

    @Test
    void theRepositoryViewListsAndSearchesTheSessionSources() {
        Session session = create(MEDIAN + "py3121");
        List<FileEntry> files = sandbox.listFiles(ListFilesRequest.newBuilder().setParent(session.getName()).setRecursive(true).build()).getFilesList();
        assertEquals(List.of("statistics.py"), files.stream().map(FileEntry::getPath).toList());
        assertTrue(files.get(0).getSize() > 10_000);
        SearchCodeResponse found = sandbox.searchCode(SearchCodeRequest.newBuilder().setParent(session.getName())
                .setQuery("i = str(n // 2)").setCaseSensitive(true).build());
        assertEquals(1, found.getMatchesCount());
        assertEquals(621, found.getMatches(0).getLine(), "3.12.1's statistics.py, patched");
        SearchCodeResponse regex = sandbox.searchCode(SearchCodeRequest.newBuilder().setParent(session.getName())
                .setQuery("^def median\\w*\\(").setRegex(true).setCaseSensitive(true).setPageSize(2).build());
        assertEquals(2, regex.getMatchesCount());
        assertFalse(regex.getNextPageToken().isEmpty(), "median, median_low, median_high, median_grouped: more than one page");
        StatusRuntimeException escape = assertThrows(StatusRuntimeException.class, () -> sandbox.listFiles(
                ListFilesRequest.newBuilder().setParent(session.getName()).setDirectory("../..").build()));
        assertEquals(Status.Code.INVALID_ARGUMENT, escape.getStatus().getCode());
        assertEquals("PATH_ESCAPES_WORKSPACE", SessionEvents.reason(escape));
    }

    @Test
    void theReferenceRunIsRecordedOnceAndThenServedFromTheCache() throws Exception {
        try (Stream<Path> entries = Files.exists(referenceCache.directory()) ? Files.list(referenceCache.directory()) : Stream.empty()) {
            for (Path entry : entries.filter(p -> p.getFileName().toString().startsWith(REFERENCE_ONLY)).toList()) {
                Files.delete(entry);
            }
        }
        GetReferenceRunRequest request = GetReferenceRunRequest.newBuilder().setName("instances/" + REFERENCE_ONLY + "/referenceRun").build();
        // Two concurrent requests on an empty cache share one run: the same outcome, to the millisecond.
        CompletableFuture<ReferenceRun> one = CompletableFuture.supplyAsync(() -> sandbox.getReferenceRun(request));
        CompletableFuture<ReferenceRun> two = CompletableFuture.supplyAsync(() -> sandbox.getReferenceRun(request));
        ReferenceRun first = one.get();
        assertFalse(first.getCached(), first.toString());
        assertEquals(first.getOutcome(), two.get().getOutcome(), "one run for both requests");
        assertTrue(first.getOutcome().getSummary().getPassed(), first.toString());
        assertFalse(first.getOutcome().getTraceMap().isEmpty());
        assertTrue(first.getOutcome().getTraceMap().keySet().stream().allMatch(k -> k.startsWith("colorsys.py:")), first.getOutcome().getTraceMap().toString());
        assertEquals("3.12.1", first.getPython());
        assertTrue(first.getDigest().matches("[0-9a-f]{64}"), first.getDigest());

        long start = System.nanoTime();
        ReferenceRun again = sandbox.getReferenceRun(request);
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(again.getCached());
        assertEquals(first.getOutcome(), again.getOutcome(), "the recorded outcome itself (a new run would differ in wall time)");
        assertEquals(first.getDigest(), again.getDigest());
        assertTrue(millis < first.getOutcome().getSummary().getWallTimeMs(), "answered in " + millis + " ms, faster than running it");
    }

    @Test
    void aReferenceRunThatFailsIsNeverCached() throws Exception {
        GetReferenceRunRequest request = GetReferenceRunRequest.newBuilder().setName("instances/" + FAILING_REFERENCE + "/referenceRun").build();
        for (int attempt = 1; attempt <= 2; attempt++) { // the second asks again: nothing was cached by the first
            StatusRuntimeException failed = assertThrows(StatusRuntimeException.class, () -> sandbox.getReferenceRun(request));
            assertEquals(Status.Code.FAILED_PRECONDITION, failed.getStatus().getCode(), failed.toString());
            assertEquals("REFERENCE_RUN_FAILED", SessionEvents.reason(failed));
            assertTrue(failed.getStatus().getDescription().contains("did not pass"), failed.getStatus().getDescription());
            try (Stream<Path> entries = Files.exists(referenceCache.directory()) ? Files.list(referenceCache.directory()) : Stream.empty()) {
                assertEquals(List.of(), entries.filter(p -> p.getFileName().toString().startsWith(FAILING_REFERENCE)).toList());
            }
        }
    }
}
