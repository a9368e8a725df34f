package io.healbench.sandbox.service.session;

import io.healbench.common.heal.Resume;
import io.healbench.common.guard.GuardDecision;
import io.healbench.common.guard.GuardMode;
import io.healbench.common.guard.HealAnalysis;
import io.healbench.common.outcome.ExitCause;
import io.healbench.sandbox.service.Abbreviation;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxException.Kind;
import io.healbench.sandbox.service.heal.HealEventSink;
import io.healbench.sandbox.service.heal.StaticDecision;
import io.healbench.sandbox.service.model.CrashContext;
import io.healbench.sandbox.service.model.HealOutcome;
import io.healbench.sandbox.service.model.Outcome;
import io.healbench.sandbox.service.model.ResourceUse;
import io.healbench.sandbox.service.model.ProbeOutcome;
import io.healbench.sandbox.service.model.SessionEvent;
import io.healbench.sandbox.service.model.SessionState;
import io.healbench.sandbox.service.model.SessionView;
import io.healbench.sandbox.service.workspace.Workspace;
import io.smallrye.mutiny.Multi;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One session: one runtime process paused (or not) at its crashes, and its event log. The runtime's messages arrive
 * through {@link #onRuntimeMessage}; commands go out through the {@link RuntimeClient}, one at a time, and only in a
 * state that allows them.
 */
public final class Session {

    private final String name;
    private final Instant createTime = Instant.now();
    private final Workspace workspace;
    private final Map<String, String> labels;
    /** HealGuard's mode for this session: enforce, observe or off (both stages). */
    private final GuardMode guardMode;
    private final SessionEventLog log;
    private final HealEventSink sink;
    /** Events reported to the sink so far: each one's ordinal names it (HealEventSink). */
    private final AtomicInteger reportedEvents = new AtomicInteger();
    private final long outputLimit;
    private final ReentrantLock commandLock = new ReentrantLock();
    private final RuntimeClient runtime;
    /** The guard decisions taken so far on the heal awaiting its result; the result carries them. */
    private volatile List<GuardDecision> healDecisions = List.of();
    private final CompletableFuture<Void> ended = new CompletableFuture<>();
    /** Completes a reported outcome before FINISHED is recorded (e.g. compares it with the reference run). */
    private final Function<Outcome, CompletableFuture<Outcome>> completion;

    private volatile SessionState state = SessionState.STARTING;
    private volatile CrashContext crash;
    private long outputBytes;
    private boolean outputTruncated;
    private boolean finishedReported;
    private volatile boolean runtimeReported;
    /** The runtime's finished outcome, held until the process's exit confirms it. */
    private Outcome claimed;
    /** Messages refused by the protocol's state machine (the first few; one is enough to distrust the outcome). */
    private final List<String> protocolViolations = new ArrayList<>();
    private static final int MAX_RECORDED_VIOLATIONS = 8;
    private CompletableFuture<Void> finishing = CompletableFuture.completedFuture(null);

    /** Reports a guard decision to the bench, numbered in this session's order. */
    void reportGuardDecision(GuardDecision decision) {
        sink.guardDecision(view(), reportedEvents.incrementAndGet(), decision);
    }

    /** Reports an applied heal to the bench, numbered in this session's order. */
    void reportHealApplied(int healPoint, String code, Resume resume, String exceptionType) {
        sink.healApplied(view(), reportedEvents.incrementAndGet(), healPoint, code, resume, exceptionType);
    }

    Session(String id, Workspace workspace, Map<String, String> labels, GuardMode guardMode, HealEventSink sink, long outputLimit,
            Function<Outcome, CompletableFuture<Outcome>> completion) {
        this.name = "sessions/" + id;
        this.guardMode = guardMode;
        this.completion = completion;
        this.workspace = workspace;
        this.labels = Map.copyOf(labels);
        this.log = new SessionEventLog(name);
        this.sink = sink;
        this.outputLimit = outputLimit;
        this.runtime = new RuntimeClient(name);
    }

    public String name() {
        return name;
    }

    public Workspace workspace() {
        return workspace;
    }

    public GuardMode guardMode() {
        return guardMode;
    }

    public SessionState state() {
        return state;
    }

    public SessionView view() {
        CrashContext current = crash;
        return new SessionView(name, workspace.instance().id(), workspace.variant(), state,
                state == SessionState.CRASHED && current != null ? current.healPoint() : 0, createTime, labels);
    }

    public Multi<SessionEvent> watch() {
        return log.watch();
    }

    public List<SessionEvent> events() {
        return log.snapshot();
    }

    boolean live() {
        return state != SessionState.FINISHED && state != SessionState.CLOSED;
    }

    void attach(RuntimeChannel runtimeChannel) {
        runtime.attach(runtimeChannel);
    }

    /** Completes when the process has ended and its end has been recorded. */
    CompletableFuture<Void> ended() {
        return ended;
    }

    /** True when the runtime itself reported the outcome (rather than the sandbox inferring it from the process end). */
    boolean runtimeReported() {
        return runtimeReported;
    }

    /** The recorded FINISHED outcome, if the session has one. */
    Optional<Outcome> finishedOutcome() {
        return log.snapshot().stream().map(SessionEvent::payload)
                .filter(SessionEvent.Finished.class::isInstance).map(p -> ((SessionEvent.Finished) p).outcome()).findFirst();
    }

    // ---------------------------------------------------------------- from the runtime and the process

    /**
     * The protocol's state machine (docs/control-protocol.md, "Who may say what"): each message is accepted only in a
     * state that allows it. One that is not (a second hello, a crash while paused, a reply nobody asked for, a
     * finished while paused or a second one) changes nothing; it is recorded, and the session's outcome is then not
     * trusted: whatever wrote it was not the runtime speaking in turn.
     */
    void onRuntimeMessage(RuntimeMessage message) {
        if (message instanceof RuntimeMessage.Hello) {
            if (state == SessionState.STARTING) {
                state = SessionState.RUNNING;
            } else {
                refuse("a hello while " + state);
            }
        } else if (message instanceof RuntimeMessage.Crash c) {
            if (state != SessionState.RUNNING) {
                refuse("a crash while " + state);
                return;
            }
            if (claimed != null) {
                // Recorded, and the crash is still served: the outcome is distrusted anyway, and the session stays usable.
                refuse("a crash after the runtime had reported finishing");
            }
            crash = c.context();
            state = SessionState.CRASHED;
            log.append(new SessionEvent.Crashed(c.context()));
        } else if (message instanceof RuntimeMessage.ProbeReply reply) {
            if (unsolicited(reply.id(), "probe_result")) {
                return;
            }
            log.append(new SessionEvent.ProbeAnswered(reply.outcome()));
            runtime.answer(reply.id(), reply);
        } else if (message instanceof RuntimeMessage.HealReply reply) {
            if (unsolicited(reply.id(), "heal_result")) {
                return;
            }
            HealOutcome outcome = withDecisions(reply.outcome(), healDecisions);
            if (outcome.applied()) {
                // The runtime resumes right after this reply; its next crash is a new heal point.
                crash = null;
                state = SessionState.RUNNING;
            }
            log.append(new SessionEvent.HealAnswered(outcome));
            runtime.answer(reply.id(), new RuntimeMessage.HealReply(reply.id(), outcome));
        } else if (message instanceof RuntimeMessage.HealAnalysisReady ready) {
            if (!unsolicited(ready.id(), "heal_analysis")) {
                runtime.answer(ready.id(), ready);
            }
        } else if (message instanceof RuntimeMessage.GuardEvent guard) {
            // The runtime names files by their path in this workspace, which is gone after the session; the
            // decision names them relative to the source tree, as the static stage does.
            GuardDecision runtime = guard.decision();
            GuardDecision decision = new GuardDecision(runtime.healPoint(), runtime.stage(), runtime.verdict(),
                    runtime.reason().replace(workspace.plan().sourceDir() + "/", ""));
            log.append(new SessionEvent.GuardDecided(decision));
            if (log.dropped() == 0) {
                // Each decision is also a broker message and a database row: bounded with the log.
                reportGuardDecision(decision);
            }
        } else if (message instanceof RuntimeMessage.Note note) {
            output("[healrt event " + note.kind() + "] " + note.json() + "\n");
        } else if (message instanceof RuntimeMessage.Finished finished) {
            claim(finished.outcome());
        } else if (message instanceof RuntimeMessage.Malformed bad) {
            output("[sandbox] malformed line from the runtime (" + bad.problem() + "): " + Abbreviation.abbreviate(bad.line(), 2000) + "\n");
        }
    }

    /** Program output or a diagnostic, counted against the session's output cap. */
    synchronized void output(String text) {
        if (outputTruncated) {
            return;
        }
        long size = text.getBytes(StandardCharsets.UTF_8).length;
        if (outputBytes + size > outputLimit) {
            outputTruncated = true;
            log.append(new SessionEvent.Output("[sandbox] output limit of " + outputLimit + " bytes reached; further output is dropped\n"));
            return;
        }
        outputBytes += size;
        log.append(new SessionEvent.Output(text));
    }

    /** True once the output cap is reached: from then on output is dropped unread. */
    synchronized boolean outputFull() {
        return outputTruncated;
    }

    /** A reply to a command that is not waiting for one (or already has its answer): refused, and false otherwise. */
    private boolean unsolicited(String id, String kind) {
        if (runtime.awaits(id)) {
            return false;
        }
        refuse("a " + kind + " nobody asked for (id " + Abbreviation.abbreviate(String.valueOf(id), 80) + ")");
        return true;
    }

    private synchronized void refuse(String what) {
        if (protocolViolations.size() < MAX_RECORDED_VIOLATIONS) {
            protocolViolations.add(what);
            output("[sandbox] refused from the control channel: " + what + "\n");
        }
    }

    /**
     * The runtime's outcome, held until the process ends: accepted once, and only while the program runs (a paused
     * runtime serves commands and cannot finish). The process's exit then confirms it, or not.
     */
    private synchronized void claim(Outcome outcome) {
        if (claimed != null || state != SessionState.RUNNING) {
            refuse(claimed != null ? "a second finished" : "a finished while " + state);
            return;
        }
        claimed = outcome;
        runtimeReported = true;
    }

    /**
     * The claimed outcome as far as it can be trusted: a pass needs a clean protocol and an exit status of 0 (healrt
     * exits with pytest's status, which is 0 only when the target test passed).
     */
    private Outcome confirmed(Outcome outcome, int exitCode) {
        if (!protocolViolations.isEmpty()) {
            return outcome.untrusted("the control channel carried messages the protocol does not allow: "
                    + String.join("; ", protocolViolations));
        }
        if (outcome.passed() && exitCode != 0) {
            return outcome.untrusted("the runtime reported a pass, but the process exited with status " + exitCode);
        }
        return outcome;
    }

    /**
     * The process has ended; records FINISHED: the runtime's claimed outcome once the exit confirms it, or the
     * inferred one with the cause when the runtime claimed none.
     */
    void onProcessEnded(ExitCause exitCause, int exitCode, long wallTimeMs, String detail, ResourceUse resources) {
        CompletableFuture<Void> reportedOutcome;
        synchronized (this) {
            if (claimed != null && !finishedReported) {
                reported(confirmed(claimed, exitCode).withResources(resources));
            } else if (!finishedReported) {
                finish(Outcome.withoutReport(exitCause, exitCode, wallTimeMs, detail).withResources(resources));
            }
            reportedOutcome = finishing;
        }
        runtime.runtimeEnded(exitCause);
        // The end counts as recorded once a reported outcome has been completed and logged as well.
        reportedOutcome.whenComplete((done, failure) -> ended.complete(null));
    }

    /**
     * The runtime's outcome: claimed at once (so the process end is not recorded as a second, inferred outcome),
     * logged as FINISHED once completed; completion runs off this thread, so it never holds up the control channel.
     */
    private synchronized void reported(Outcome outcome) {
        if (finishedReported) {
            return;
        }
        finishedReported = true;
        finishing = completion.apply(outcome)
                .exceptionally(failure -> outcome.withDetail("outcome not completed: " + failure))
                .thenAccept(this::finish);
    }

    private synchronized void finish(Outcome outcome) {
        finishedReported = true;
        crash = null;
        if (state != SessionState.CLOSED) {
            state = SessionState.FINISHED;
        }
        log.append(new SessionEvent.Finished(outcome));
    }

    void markClosed() {
        state = SessionState.CLOSED;
        log.close();
    }

    // ---------------------------------------------------------------- commands to the runtime

    /** Fails with FAILED_PRECONDITION unless the session is paused at a crash; returns that crash. */
    public CrashContext requireCrashed() {
        CrashContext current = crash;
        if (state != SessionState.CRASHED || current == null) {
            throw new SandboxException(Kind.FAILED_PRECONDITION, "SESSION_NOT_CRASHED",
                    name + " is " + state + ", not CRASHED: probe, heal and reraise need a paused crash");
        }
        return current;
    }

    /** {@code limit} bounds the probe in the runtime; {@code replyTimeout} bounds the wait for its reply. */
    public ProbeOutcome probe(String code, boolean inplace, Duration limit, Duration replyTimeout) {
        return whileCrashed(() -> runtime.probe(code, inplace, limit, replyTimeout));
    }

    /** Sends the heal (which must have passed the gate already) and waits for its result. */
    public HealOutcome heal(String code, Resume resume, List<GuardDecision> decisions, Duration timeout) {
        return whileCrashed(() -> {
            healDecisions = List.copyOf(decisions);
            return runtime.heal(code, resume, timeout);
        });
    }

    /** Records a heal that never reached the runtime (refused before it could run). */
    public void recordRefusedHeal(HealOutcome outcome) {
        outcome.guardDecisions().forEach(d -> log.append(new SessionEvent.GuardDecided(d)));
        log.append(new SessionEvent.HealAnswered(outcome));
    }

    /** Records a guard decision taken on the sandbox's side (e.g. the gate accepting a heal). */
    public void recordGuardDecision(GuardDecision decision) {
        log.append(new SessionEvent.GuardDecided(decision));
    }

    public void reraise() {
        commandLock.lock();
        try {
            requireCrashed();
            // Before the send: once the runtime has the command it may crash again at once, and the reader thread's
            // CRASHED for that next heal point must not be overwritten by this one's RUNNING.
            crash = null;
            state = SessionState.RUNNING;
            runtime.reraise();
        } finally {
            commandLock.unlock();
        }
    }

    /**
     * Sends the heal with {@code analyze} (which must have passed the gate already): after its dry run the runtime
     * reports the analysis, {@code stage} decides, and the heal is committed or aborted (the runtime then stays
     * paused at this crash). A dry run that fails answers at once, without analysis.
     */
    public HealOutcome heal(String code, Resume resume, List<GuardDecision> decisions, Duration timeout,
                            Function<HealAnalysis, StaticDecision> stage) {
        return whileCrashed(() -> {
            healDecisions = List.copyOf(decisions);
            RuntimeMessage.HealAnswer first = runtime.healForAnalysis(code, resume, timeout);
            if (!(first instanceof RuntimeMessage.HealAnalysisReady ready)) {
                return ((RuntimeMessage.HealReply) first).outcome();
            }
            StaticDecision decided;
            try {
                decided = stage.apply(ready.analysis());
            } catch (RuntimeException e) {
                runtime.abort(ready.id(), "the static stage failed: " + e.getMessage(), timeout);
                throw e;
            }
            List<GuardDecision> all = new ArrayList<>(decisions);
            all.add(decided.decision());
            healDecisions = List.copyOf(all);
            return decided.commit() ? runtime.commit(ready.id(), decided.verdict(), timeout)
                    : runtime.abort(ready.id(), decided.abortReason(), timeout);
        });
    }

    /** Runs a command to the paused runtime, one at a time; refused unless the session is paused at a crash. */
    private <T> T whileCrashed(Supplier<T> command) {
        commandLock.lock();
        try {
            requireCrashed();
            return command.get();
        } finally {
            healDecisions = List.of();  // they belong to this command's heal only
            commandLock.unlock();
        }
    }

    private static HealOutcome withDecisions(HealOutcome outcome, List<GuardDecision> decisions) {
        List<GuardDecision> all = new ArrayList<>(decisions);
        all.addAll(outcome.guardDecisions());
        return new HealOutcome(outcome.applied(), outcome.error(), outcome.traceback(), outcome.changed(), outcome.resume(), List.copyOf(all));
    }
}
