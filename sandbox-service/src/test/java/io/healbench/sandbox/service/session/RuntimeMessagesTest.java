package io.healbench.sandbox.service.session;

import io.healbench.common.heal.Resume;
import io.healbench.common.outcome.ExitCause;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.common.dataset.Instance;
import io.healbench.common.dataset.Subject;
import io.healbench.common.guard.GuardDecision;
import io.healbench.common.guard.GuardMode;
import io.healbench.common.guard.GuardStage;
import io.healbench.common.guard.GuardVerdict;
import io.healbench.sandbox.service.heal.HealEventSink;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.model.Outcome;
import io.healbench.sandbox.service.model.ReferenceComparison;
import io.healbench.sandbox.service.model.ResourceUse;
import io.healbench.sandbox.service.model.SessionEvent;
import io.healbench.sandbox.service.model.SessionState;
import io.healbench.sandbox.service.model.SessionView;
import io.healbench.sandbox.service.model.Variant;
import io.healbench.sandbox.service.workspace.RunPlan;
import io.healbench.sandbox.service.workspace.Workspace;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** Decoding the runtime's lines, and what a session makes of them, including garbage. */
class RuntimeMessagesTest {

    private final List<GuardDecision> published = new ArrayList<>();

    private Session session(long outputLimit) {
        return session(outputLimit, CompletableFuture::completedFuture);
    }

    private Session session(long outputLimit, Function<Outcome, CompletableFuture<Outcome>> completion) {
        Instance instance = new Instance("sandbox-unit", Subject.parse("cpython-stdlib@3.11.7"), "cpython-stdlib", "3.11.7", List.of("colorsys.py"),
                "bug.patch", null, "test/test_colorsys.py::T::t", Instance.ORIGIN_SUBJECT, new Instance.ExpectedCrash("TypeError", "colorsys.py", "f", 1),
                "default", Map.of("kind", "injected"), Map.of(), Path.of("/nonexistent"), "0");
        Workspace ws = new Workspace(Path.of("/nonexistent/ws"), instance, Variant.BUGGY,
                new RunPlan("sandbox-unit", "buggy", "0", "/nonexistent/python", "/nonexistent/lib", "/nonexistent/ws/src", List.of("colorsys"),
                        "/nonexistent/lib/test/test_colorsys.py::T::t", List.of(), Map.of(), List.of(), List.of()));
        return new Session("unit", ws, Map.of("tenant", "t"), GuardMode.ENFORCE, new HealEventSink() {
            @Override
            public void healApplied(SessionView session, int ordinal, int healPoint, String code, Resume resume, String exceptionType) {}

            @Override
            public void guardDecision(SessionView session, int ordinal, GuardDecision decision) {
                published.add(decision);
            }
        }, outputLimit, completion);
    }

    @Test
    void crashLinesBecomeCrashContexts() {
        RuntimeMessage message = RuntimeMessageDecoder.decode("{\"type\":\"crash\",\"context\":{\"heal_point\":2,\"exception_type\":\"KeyError\","
                + "\"exception_message\":\"'x'\",\"traceback\":[{\"file\":\"a.py\",\"line\":12,\"function\":\"get\",\"source_line\":\"v = d[k]\",\"project\":true}],"
                + "\"locals\":[{\"name\":\"d\",\"type\":\"dict\",\"repr\":\"{}\",\"truncated\":false}],"
                + "\"statement\":{\"source\":\"v = d[k]\",\"file\":\"a.py\",\"line\":12,\"end_line\":12,\"col\":8,\"end_col\":16,\"kind\":\"assign\",\"targets\":[\"v\"]},"
                + "\"function_source\":\"def get(d, k): ...\",\"caller_sources\":[],\"in_function\":true,\"something_new\":1}}");
        RuntimeMessage.Crash crash = assertInstanceOf(RuntimeMessage.Crash.class, message);
        assertEquals(2, crash.context().healPoint());
        assertEquals("KeyError", crash.context().exceptionType());
        assertEquals("get", crash.context().traceback().get(0).function());
        assertEquals("v = d[k]", crash.context().traceback().get(0).sourceLine());
        assertEquals(List.of("v"), crash.context().statement().targets());
        assertEquals(16, crash.context().statement().endCol());
        assertTrue(crash.context().inFunction());
    }

    @Test
    void runtimeRejectionsAndGuardEventsAreRecognised() {
        RuntimeMessage.HealReply reply = assertInstanceOf(RuntimeMessage.HealReply.class, RuntimeMessageDecoder.decode(
                "{\"type\":\"heal_result\",\"id\":\"7\",\"ok\":false,\"error\":{\"reason\":\"forbidden\",\"message\":\"name 'exec' is not allowed\"},"
                        + "\"traceback\":null,\"changed\":[],\"resume\":\"skip\"}"));
        assertFalse(reply.outcome().applied());
        assertTrue(reply.outcome().error().rejected());
        assertEquals("FORBIDDEN", reply.outcome().error().reason());
        assertEquals(Resume.SKIP, reply.outcome().resume());
        assertInstanceOf(RuntimeMessage.Malformed.class, RuntimeMessageDecoder.decode(
                "{\"type\":\"heal_result\",\"id\":\"8\",\"ok\":true,\"changed\":[],\"resume\":\"teleport\"}"),
                "a resume this build does not know is not taken for another");


        RuntimeMessage.GuardEvent guard = assertInstanceOf(RuntimeMessage.GuardEvent.class, RuntimeMessageDecoder.decode(
                "{\"type\":\"event\",\"kind\":\"guard_violation\",\"heal_point\":1,\"stage\":\"dynamic\",\"verdict\":\"blocked\",\"reason\":\"os.remove\"}"));
        assertEquals(new GuardDecision(1, GuardStage.DYNAMIC, GuardVerdict.BLOCKED, "os.remove"), guard.decision());
        assertInstanceOf(RuntimeMessage.Note.class, RuntimeMessageDecoder.decode("{\"type\":\"event\",\"kind\":\"catch_undecided\",\"reason\":\"r\"}"));
    }

    @Test
    void aDynamicFlowRecordKeepsItsWitnessPathInTheDecisionsReason() {
        // The shape healrt's sinks package sends for a violation: source, steps (one elided run), sink.
        RuntimeMessage.GuardEvent guard = assertInstanceOf(RuntimeMessage.GuardEvent.class, RuntimeMessageDecoder.decode(
                "{\"type\":\"event\",\"kind\":\"guard_violation\",\"heal_point\":1,\"stage\":\"dynamic\",\"verdict\":\"blocked\","
                        + "\"reason\":\"open\",\"rule\":\"taint\",\"flow\":["
                        + "{\"kind\":\"source\",\"location\":\"name:mode\",\"file\":\"gzip.py\",\"line\":192,\"heal_point\":1},"
                        + "{\"kind\":\"step\",\"op\":\"str.__add__\",\"file\":\"gzip.py\",\"line\":193},"
                        + "{\"kind\":\"elided\",\"steps\":4},"
                        + "{\"kind\":\"sink\",\"op\":\"open\",\"file\":\"gzip.py\",\"line\":194,\"key_input\":\"file\"}]}"));
        assertEquals("open [taint]: heal source name:mode (gzip.py:192) -> str.__add__ (gzip.py:193) -> 4 more steps"
                + " -> open(file) (gzip.py:194)", guard.decision().reason());
        assertEquals(GuardVerdict.BLOCKED, guard.decision().verdict());
    }

    @Test
    void aGuardDecisionNamesFilesRelativeToTheSourceTreeNotTheWorkspace() {
        Session session = session(1 << 20);
        session.onRuntimeMessage(RuntimeMessageDecoder.decode("{\"type\":\"event\",\"kind\":\"guard_violation\",\"heal_point\":1,"
                + "\"stage\":\"dynamic\",\"verdict\":\"blocked\",\"reason\":\"open\",\"rule\":\"taint\",\"flow\":["
                + "{\"kind\":\"source\",\"location\":\"name:p\",\"file\":\"/nonexistent/ws/src/colorsys.py\",\"line\":12},"
                + "{\"kind\":\"sink\",\"op\":\"open\",\"file\":\"/usr/lib/python3.11/shutil.py\",\"line\":3}]}"));
        assertEquals(List.of(new GuardDecision(1, GuardStage.DYNAMIC, GuardVerdict.BLOCKED,
                "open [taint]: heal source name:p (colorsys.py:12) -> open (/usr/lib/python3.11/shutil.py:3)")), published);
    }

    @Test
    void theRuntimesExitCauseIsParsedOnceAndAnUnknownOneIsKeptAsAnErrorThatQuotesIt() {
        assertEquals(ExitCause.EXITED, finished("{\"exit_cause\":\"exited\",\"detail\":\"ok\"}").exitCause());
        Outcome raised = finished("{\"exit_cause\":\"error\",\"detail\":\"the test runner raised UsageError: bad args\"}");
        assertEquals(ExitCause.ERROR, raised.exitCause());
        assertEquals("the test runner raised UsageError: bad args", raised.detail());
        Outcome forged = finished("{\"exit_cause\":\"healed-by-magic\",\"passed\":true,\"detail\":\"trust me\"}");
        assertEquals(ExitCause.ERROR, forged.exitCause(), "a cause this build does not know is the runtime's fault");
        assertTrue(forged.detail().contains("'healed-by-magic'") && forged.detail().endsWith("; trust me"), forged.detail());
        Outcome silent = finished("{\"passed\":true}");
        assertEquals(ExitCause.ERROR, silent.exitCause(), "a finished message without a cause says nothing about how it ended");
        assertTrue(silent.detail().contains("exit cause must be"), silent.detail());
    }

    private static Outcome finished(String outcomeJson) {
        RuntimeMessage decoded = RuntimeMessageDecoder.decode("{\"type\":\"finished\",\"outcome\":" + outcomeJson + "}");
        return assertInstanceOf(RuntimeMessage.Finished.class, decoded, outcomeJson).outcome();
    }

    @Test
    void malformedLinesBecomeDiagnosticsNotFailures() {

        Session session = session(1 << 20);
        for (String garbage : List.of("not json at all", "[1,2,3]", "{\"no_type\":1}", "{\"type\":\"crash\",\"context\":17}",
                "{\"type\":\"finished\"}", "{\"type\":\"warp_drive\"}", "{\"type\":\"crash\",\"context\":{\"heal_point\":\"many\"}}")) {
            RuntimeMessage decoded = RuntimeMessageDecoder.decode(garbage);
            assertInstanceOf(RuntimeMessage.Malformed.class, decoded, garbage);
            session.onRuntimeMessage(decoded);
        }
        List<SessionEvent> events = session.events();
        assertEquals(7, events.size());
        assertTrue(events.stream().allMatch(e -> e.payload() instanceof SessionEvent.Output o && o.text().contains("malformed line")), events.toString());
        assertEquals(SessionState.STARTING, session.state(), "garbage changes no state");
    }

    @Test
    void sessionFollowsTheRuntimeAndEndsOnce() {
        Session session = session(1 << 20);
        session.onRuntimeMessage(RuntimeMessageDecoder.decode("{\"type\":\"hello\",\"pid\":1,\"python\":\"3.11.7\",\"protocol\":1}"));
        assertEquals(SessionState.RUNNING, session.state());
        session.onRuntimeMessage(RuntimeMessageDecoder.decode("{\"type\":\"crash\",\"context\":{\"heal_point\":1,\"exception_type\":\"TypeError\"}}"));
        assertEquals(SessionState.CRASHED, session.state());
        assertEquals(1, session.view().healPoint());
        session.onRuntimeMessage(RuntimeMessageDecoder.decode("{\"type\":\"event\",\"kind\":\"guard_decision\",\"heal_point\":1,\"stage\":\"dynamic\",\"verdict\":\"observed\",\"reason\":\"r\"}"));
        assertEquals(1, published.size(), "runtime guard decisions are published");
        // reraise resumes the runtime: the state is RUNNING before the command goes out (here there is no channel).
        assertThrows(SandboxException.class, session::reraise);
        assertEquals(SessionState.RUNNING, session.state());
        session.onRuntimeMessage(RuntimeMessageDecoder.decode("{\"type\":\"finished\",\"outcome\":{\"proceeded\":true,\"passed\":false,\"exit_cause\":\"exited\",\"exit_code\":1,\"trace\":{\"colorsys.py:12\":3}}}"));
        assertEquals(SessionState.RUNNING, session.state(), "the outcome is held until the process's exit confirms it");
        session.onProcessEnded(ExitCause.EXITED, 1, 10, "late", ResourceUse.unmeasured());
        assertEquals(SessionState.FINISHED, session.state());
        List<SessionEvent> finished = session.events().stream().filter(e -> e.payload() instanceof SessionEvent.Finished).toList();
        assertEquals(1, finished.size(), "the runtime's own outcome wins; no second FINISHED");
        SessionEvent.Finished end = (SessionEvent.Finished) finished.get(0).payload();
        assertTrue(end.outcome().proceeded());
        assertEquals(3L, end.outcome().trace().get("colorsys.py:12"));
    }

    @Test
    void reportedOutcomeIsCompletedBeforeFinishedAndTheEndWaitsForIt() {
        CompletableFuture<Outcome> compared = new CompletableFuture<>();
        Session session = session(1 << 20, outcome -> compared);
        session.onRuntimeMessage(RuntimeMessageDecoder.decode("{\"type\":\"hello\",\"pid\":1,\"python\":\"3.11.7\",\"protocol\":1}"));
        session.onRuntimeMessage(RuntimeMessageDecoder.decode("{\"type\":\"finished\",\"outcome\":{\"proceeded\":true,\"passed\":true,\"exit_cause\":\"exited\",\"trace\":{\"colorsys.py:12\":3}}}"));
        session.onProcessEnded(ExitCause.EXITED, 0, 10, "process gone", ResourceUse.unmeasured());
        assertTrue(session.events().stream().noneMatch(e -> e.payload() instanceof SessionEvent.Finished),
                "neither the reported nor an inferred outcome is logged before the completion");
        assertFalse(session.ended().isDone(), "the end is recorded only with the completed outcome");
        assertTrue(session.runtimeReported());

        Outcome reported = Outcome.reported(true, true, 0, 0, 0, ExitCause.EXITED, 0, 5, Map.of("colorsys.py:12", 3L), "");
        compared.complete(reported.withReference(new ReferenceComparison(0.5, 1.0, true)));
        List<SessionEvent> finished = session.events().stream().filter(e -> e.payload() instanceof SessionEvent.Finished).toList();
        assertEquals(1, finished.size());
        Outcome end = ((SessionEvent.Finished) finished.get(0).payload()).outcome();
        assertEquals(0.5, end.reference().traceSimilarity());
        assertEquals(SessionState.FINISHED, session.state());
        assertTrue(session.ended().isDone());
        assertEquals(end, session.finishedOutcome().orElseThrow());
    }

    @Test
    void outputBeyondTheCapIsDroppedWithOneMarker() {
        Session session = session(10);
        session.output("12345");
        session.output("67890abcdef");
        session.output("more");
        List<SessionEvent> events = session.events();
        assertEquals(2, events.size(), events.toString());
        assertEquals("12345", ((SessionEvent.Output) events.get(0).payload()).text());
        assertTrue(((SessionEvent.Output) events.get(1).payload()).text().contains("output limit of 10 bytes"));
    }
}
