package io.healbench.sandbox.service.session;

import io.healbench.sandbox.service.Abbreviation;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxException.Kind;
import io.healbench.sandbox.service.heal.HealEventSink;
import io.healbench.sandbox.service.heal.StaticDecision;
import io.healbench.sandbox.service.model.CrashContext;
import io.healbench.sandbox.service.model.GuardDecision;
import io.healbench.sandbox.service.model.HealAnalysis;
import io.healbench.sandbox.service.model.HealOutcome;
import io.healbench.sandbox.service.model.Outcome;
import io.healbench.sandbox.service.model.ResourceUse;
import io.healbench.sandbox.service.model.ProbeOutcome;
import io.healbench.sandbox.service.model.SessionEvent;
import io.healbench.sandbox.service.model.SessionState;
import io.healbench.sandbox.service.model.SessionView;
import io.healbench.sandbox.service.workspace.Workspace;
import io.smallrye.mutiny.Multi;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * One session: one runtime process paused (or not) at its crashes, its control channel and its event log.
 * The runtime's messages arrive through {@link #onRuntimeMessage}; commands go out one at a time.
 */
public final class Session {

    private final String name;
    private final Instant createTime = Instant.now();
    private final Workspace workspace;
    private final Map<String, String> labels;
    /** HealGuard's mode for this session: enforce, observe or off (both stages). */
    private final String guardMode;
    private final SessionEventLog log;
    private final HealEventSink sink;
    /** Events reported to the sink so far: each one's ordinal names it (HealEventSink). */
    private final AtomicInteger reportedEvents = new AtomicInteger();
    private final long outputLimit;
    private final ReentrantLock commandLock = new ReentrantLock();
    private final Map<String, Pending> pending = new ConcurrentHashMap<>();
    private final CompletableFuture<Void> ended = new CompletableFuture<>();
    /** Completes a reported outcome before FINISHED is recorded (e.g. compares it with the reference run). */
    private final Function<Outcome, CompletableFuture<Outcome>> completion;

    private volatile SessionState state = SessionState.STARTING;
    private volatile CrashContext crash;
    private volatile RuntimeChannel channel;
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

    /** A command waiting for the runtime's answer, with the guard decisions to attach to it. */
    private record Pending(CompletableFuture<RuntimeMessage> answer, List<GuardDecision> decisions) {}

    /** Reports a guard decision to the bench, numbered in this session's order. */
    void reportGuardDecision(GuardDecision decision) {
        sink.guardDecision(view(), reportedEvents.incrementAndGet(), decision);
    }

    /** Reports an applied heal to the bench, numbered in this session's order. */
    void reportHealApplied(int healPoint, String code, String resume, String exceptionType) {
        sink.healApplied(view(), reportedEvents.incrementAndGet(), healPoint, code, resume, exceptionType);
    }

    Session(String id, Workspace workspace, Map<String, String> labels, String guardMode, HealEventSink sink, long outputLimit,
            Function<Outcome, CompletableFuture<Outcome>> completion) {
        this.name = "sessions/" + id;
        this.guardMode = guardMode;
        this.completion = completion;
        this.workspace = workspace;
        this.labels = Map.copyOf(labels);
        this.log = new SessionEventLog(name);
        this.sink = sink;
        this.outputLimit = outputLimit;
    }

    public String name() {
        return name;
    }

    public Workspace workspace() {
        return workspace;
    }

    public String guardMode() {
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
        this.channel = runtimeChannel;
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
            answer(reply.id(), reply);
        } else if (message instanceof RuntimeMessage.HealReply reply) {
            if (unsolicited(reply.id(), "heal_result")) {
                return;
            }
            Pending waiting = pending.get(reply.id());
            HealOutcome outcome = withDecisions(reply.outcome(), waiting.decisions());
            if (outcome.applied()) {
                // The runtime resumes right after this reply; its next crash is a new heal point.
                crash = null;
                state = SessionState.RUNNING;
            }
            log.append(new SessionEvent.HealAnswered(outcome));
            answer(reply.id(), new RuntimeMessage.HealReply(reply.id(), outcome));
        } else if (message instanceof RuntimeMessage.HealAnalysisReady ready) {
            if (!unsolicited(ready.id(), "heal_analysis")) {
                answer(ready.id(), ready);
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
        Pending waiting = id == null ? null : pending.get(id);
        if (waiting == null || waiting.answer().isDone()) {
            refuse("a " + kind + " nobody asked for (id " + Abbreviation.abbreviate(String.valueOf(id), 80) + ")");
            return true;
        }
        return false;
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
    void onProcessEnded(String exitCause, int exitCode, long wallTimeMs, String detail, ResourceUse resources) {
        CompletableFuture<Void> reportedOutcome;
        synchronized (this) {
            if (claimed != null && !finishedReported) {
                reported(confirmed(claimed, exitCode).withResources(resources));
            } else if (!finishedReported) {
                finish(Outcome.withoutReport(exitCause, exitCode, wallTimeMs, detail).withResources(resources));
            }
            reportedOutcome = finishing;
        }
        SandboxException gone = new SandboxException(Kind.FAILED_PRECONDITION, "SESSION_ENDED",
                name + " ended (" + exitCause + ") before the runtime answered");
        pending.values().forEach(p -> p.answer().completeExceptionally(gone));
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
        Map<String, Object> command = new LinkedHashMap<>();
        command.put("cmd", "probe");
        command.put("code", code);
        command.put("inplace", inplace);
        command.put("timeout_s", limit.toMillis() / 1000.0);
        return ((RuntimeMessage.ProbeReply) request(command, List.of(), replyTimeout)).outcome();
    }

    /** Sends the heal (which must have passed the gate already) and waits for its result. */
    public HealOutcome heal(String code, String resume, List<GuardDecision> decisions, Duration timeout) {
        Map<String, Object> command = new LinkedHashMap<>();
        command.put("cmd", "heal");
        command.put("code", code);
        command.put("resume", resume);
        return ((RuntimeMessage.HealReply) request(command, decisions, timeout)).outcome();
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
            send(Map.of("cmd", "reraise"));
        } finally {
            commandLock.unlock();
        }
    }

    /**
     * Sends the heal with {@code analyze} (which must have passed the gate already): after its dry run the runtime
     * reports the analysis, {@code stage} decides, and the heal is committed or aborted (the runtime then stays
     * paused at this crash). A dry run that fails answers at once, without analysis.
     */
    public HealOutcome heal(String code, String resume, List<GuardDecision> decisions, Duration timeout,
                            Function<HealAnalysis, StaticDecision> stage) {
        Map<String, Object> command = new LinkedHashMap<>();
        command.put("cmd", "heal");
        command.put("code", code);
        command.put("resume", resume);
        command.put("analyze", true);
        commandLock.lock();
        String id = UUID.randomUUID().toString();
        try {
            requireCrashed();
            command.put("id", id);
            RuntimeMessage first;
            try {
                first = exchange(id, command, decisions, timeout);
            } catch (SandboxException e) {
                abortQuietly(id, "no analysis arrived in time");  // the runtime may be waiting for a decision
                throw e;
            }
            if (!(first instanceof RuntimeMessage.HealAnalysisReady ready)) {
                return ((RuntimeMessage.HealReply) first).outcome();
            }
            StaticDecision decided;
            try {
                decided = stage.apply(ready.analysis());
            } catch (RuntimeException e) {
                exchange(id, abort(id, "the static stage failed: " + e.getMessage()), decisions, timeout);
                throw e;
            }
            List<GuardDecision> all = new ArrayList<>(decisions);
            all.add(decided.decision());
            Map<String, Object> decision = decided.commit() ? commit(id, decided.verdict()) : abort(id, decided.abortReason());
            return ((RuntimeMessage.HealReply) exchange(id, decision, all, timeout)).outcome();
        } finally {
            pending.remove(id);
            commandLock.unlock();
        }
    }

    /** heal_commit with the static verdict: a {@code clean} one waives healrt's bool/None rule for this heal. */
    private static Map<String, Object> commit(String id, String staticVerdict) {
        Map<String, Object> command = new LinkedHashMap<>();
        command.put("cmd", "heal_commit");
        command.put("id", id);
        command.put("static_verdict", staticVerdict);
        return command;
    }

    private static Map<String, Object> abort(String id, String reason) {
        Map<String, Object> command = new LinkedHashMap<>();
        command.put("cmd", "heal_abort");
        command.put("id", id);
        command.put("reason", reason);
        return command;
    }

    private void abortQuietly(String id, String reason) {
        try {
            send(abort(id, reason));
        } catch (SandboxException e) {
            // the runtime is gone; nothing waits for the decision
        }
    }

    private RuntimeMessage request(Map<String, Object> command, List<GuardDecision> decisions, Duration timeout) {
        commandLock.lock();
        String id = UUID.randomUUID().toString();
        try {
            requireCrashed();
            command.put("id", id);
            return exchange(id, command, decisions, timeout);
        } finally {
            pending.remove(id);
            commandLock.unlock();
        }
    }

    /** Sends one command and waits for the runtime's answer with its id (the caller holds the command lock). */
    private RuntimeMessage exchange(String id, Map<String, Object> command, List<GuardDecision> decisions, Duration timeout) {
        try {
            Pending waiting = new Pending(new CompletableFuture<>(), List.copyOf(decisions));
            pending.put(id, waiting);
            send(command);
            return waiting.answer().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new SandboxException(Kind.DEADLINE_EXCEEDED, "RUNTIME_TIMEOUT",
                    name + ": no answer to '" + command.get("cmd") + "' within " + timeout.toSeconds() + " s");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SandboxException sandbox) {
                throw sandbox;
            }
            throw new SandboxException(Kind.INTERNAL, "RUNTIME_FAILED", name + ": " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SandboxException(Kind.INTERNAL, "INTERRUPTED", name + ": interrupted while waiting for the runtime", e);
        }
    }

    private void send(Map<String, Object> command) {
        RuntimeChannel current = channel;
        try {
            if (current == null) {
                throw new IOException("no control channel");
            }
            current.send(RuntimeMessageDecoder.encode(command));
        } catch (IOException e) {
            throw new SandboxException(Kind.FAILED_PRECONDITION, "RUNTIME_UNREACHABLE", name + ": cannot send '" + command.get("cmd")
                    + "' to the runtime: " + e.getMessage(), e);
        }
    }

    private void answer(String id, RuntimeMessage reply) {
        Pending waiting = pending.get(id);
        if (waiting != null) {
            waiting.answer().complete(reply);
        }
    }

    private static HealOutcome withDecisions(HealOutcome outcome, List<GuardDecision> decisions) {
        List<GuardDecision> all = new ArrayList<>(decisions);
        all.addAll(outcome.guardDecisions());
        return new HealOutcome(outcome.applied(), outcome.error(), outcome.traceback(), outcome.changed(), outcome.resume(), List.copyOf(all));
    }
}
