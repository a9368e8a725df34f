package io.healbench.sandbox.service.session;

import io.healbench.common.dataset.Instance;
import io.healbench.common.guard.GuardMode;
import io.healbench.common.guard.GuardStage;
import io.healbench.common.guard.GuardVerdict;
import io.healbench.common.outcome.ExitCause;
import io.healbench.sandbox.config.SandboxConfig;
import io.healbench.sandbox.service.InstanceLookup;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxMetrics;
import io.healbench.sandbox.service.SandboxException.Kind;
import io.healbench.sandbox.service.heal.GateAnswer;
import io.healbench.sandbox.service.heal.HealCodeGate;
import io.healbench.sandbox.service.heal.HealEventSink;
import io.healbench.sandbox.service.heal.StaticDecision;
import io.healbench.sandbox.service.heal.StaticGuard;
import io.healbench.sandbox.service.model.CrashContext;
import io.healbench.common.guard.GuardDecision;
import io.healbench.sandbox.service.model.HealOutcome;
import io.healbench.sandbox.service.model.Outcome;
import io.healbench.sandbox.service.model.ProbeOutcome;
import io.healbench.common.heal.Resume;
import io.healbench.sandbox.service.model.SessionEvent;
import io.healbench.sandbox.service.model.SessionView;
import io.healbench.sandbox.service.model.Variant;
import io.healbench.sandbox.service.process.GroupProcess;
import io.healbench.sandbox.service.process.ProcessLauncher;
import io.healbench.sandbox.service.reference.ReferenceRuns;
import io.healbench.sandbox.service.reference.SessionLauncher;
import io.healbench.sandbox.service.reference.UnattendedRun;
import io.healbench.sandbox.service.workspace.Workspace;
import io.healbench.sandbox.service.workspace.WorkspaceMaterializer;
import io.smallrye.mutiny.Multi;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.jboss.logging.Logger;

/**
 * The sessions of this sandbox: creates them (bounded, idempotent by request id), routes commands to them,
 * and enforces the heal path: every heal passes the HealCore gate before the runtime ever sees it.
 */
@ApplicationScoped
public class SandboxSessions implements SessionLauncher {

    private static final Logger LOG = Logger.getLogger(SandboxSessions.class);
    private static final long CLOSE_WAIT_SECONDS = 15;

    private final SandboxConfig config;
    private final InstanceLookup instances;
    private final WorkspaceMaterializer materializer;
    private final ReferenceRuns references;
    private final HealrtInvocation invocation;
    private final ProcessLauncher launcher;
    private final HealCodeGate gate;
    private final StaticGuard staticGuard;
    private final HealEventSink sink;
    private final SandboxMetrics metrics;
    private final SharedCodeCache codeCache;

    /** Warm-ups of the shared code cache by key (SharedCodeCache#warmUpKey) that are running, or failed in this process. */
    private final Map<String, CompletableFuture<Void>> warmUps = new ConcurrentHashMap<>();
    private final Map<String, Session> sessions = new ConcurrentHashMap<>();
    private final Map<String, SessionSupervisor> supervisors = new ConcurrentHashMap<>();
    /** The session each request id created, or is creating. */
    private final Map<String, CompletableFuture<String>> sessionByRequest = new ConcurrentHashMap<>();
    /** Creates admitted but not yet started: they count against max-sessions. Guarded by {@code this}. */
    private int starting;
    /** Sessions the sandbox runs for itself (reference runs): bounded by their own pool, not by max-sessions. */
    private final Set<String> unattended = ConcurrentHashMap.newKeySet();
    /** Closes and forgets ended sessions after their retention. */
    private final ScheduledExecutorService reaper = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "sandbox-session-reaper");
        thread.setDaemon(true);
        return thread;
    });

    public SandboxSessions(SandboxConfig config, InstanceLookup instances, WorkspaceMaterializer materializer, ReferenceRuns references,
                           HealrtInvocation invocation, ProcessLauncher launcher, HealCodeGate gate, StaticGuard staticGuard,
                           HealEventSink sink, SandboxMetrics metrics, SharedCodeCache codeCache) {
        this.config = config;
        this.instances = instances;
        this.materializer = materializer;
        this.references = references;
        this.invocation = invocation;
        this.launcher = launcher;
        this.gate = gate;
        this.staticGuard = staticGuard;
        this.sink = sink;
        this.metrics = metrics;
        this.codeCache = codeCache;
    }

    /**
     * Creates a session, or returns the one an earlier create with the same request id made. Only admission holds the
     * lock: materializing a workspace and starting its process run outside it, so sessions start in parallel.
     */
    public SessionView create(CreateSessionCommand command) {
        String requestId = command.requestId() == null ? "" : command.requestId();
        if (command.variant() == null) {
            throw new SandboxException(Kind.INVALID_ARGUMENT, "VARIANT_REQUIRED", "variant must be BUGGY or REFERENCE");
        }
        CompletableFuture<String> created = new CompletableFuture<>();
        CompletableFuture<String> earlier;
        synchronized (this) {
            earlier = requestId.isEmpty() ? null : sessionByRequest.putIfAbsent(requestId, created);
            if (earlier == null) {
                long live = sessions.values().stream().filter(s -> s.live() && !unattended.contains(s.name())).count() + starting;
                if (live >= config.maxSessions()) {
                    sessionByRequest.remove(requestId, created);
                    throw new SandboxException(Kind.RESOURCE_EXHAUSTED, "TOO_MANY_SESSIONS",
                            live + " sessions are live, the limit is " + config.maxSessions() + "; close one or retry later");
                }
                starting++;
            }
        }
        if (earlier != null) {
            try {
                return session(earlier.join()).view();
            } catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException cause ? cause : e;
            }
        }
        try {
            Instance instance = instances.get(command.instanceId());
            if (!command.expectedDigest().isEmpty() && !command.expectedDigest().equals(instance.digest())) {
                // A run's results must be of the instance its manifest names, not of whatever the dataset holds now.
                throw new SandboxException(Kind.FAILED_PRECONDITION, "INSTANCE_CHANGED", "instance " + instance.id()
                        + " changed since its run was created (digest " + command.expectedDigest() + ", now " + instance.digest() + ")");
            }
            boolean buggy = command.variant() == Variant.BUGGY;
            if (buggy) {
                warmUp(instance, command.guardMode());
            }
            Function<Outcome, CompletableFuture<Outcome>> completion = buggy
                    ? outcome -> references.compare(instance, outcome) : CompletableFuture::completedFuture;
            Session session = start(instance, command.variant(), command.intercept(), command.guardMode(), command.labels(),
                    completion, false, false);
            if (buggy) {
                // Recorded alongside the BUGGY run, so the comparison at FINISHED rarely has to wait for it.
                references.prepare(instance);
            }
            created.complete(session.name());
            metrics.sessionOpened(command.variant());
            return session.view();
        } catch (RuntimeException e) {
            // A retry with the same request id tries again; one waiting on this create gets the same error.
            sessionByRequest.remove(requestId, created);
            created.completeExceptionally(e);
            throw e;
        } finally {
            synchronized (this) {
                starting--;
            }
        }
    }

    @Override
    public UnattendedRun runUnattended(Instance instance, Variant variant) {
        // A reference run is trusted too, but writes no rewrites (they would be of the fix): it reads those of the
        // pristine subject that a warm-up in its own guard mode (off) published, up to the first file its fix changes.
        warmUp(instance, GuardMode.OFF);
        return runTrusted(instance, variant, GuardMode.OFF, null);
    }

    /**
     * Fills the instance's partition of the shared code cache for BUGGY sessions in this guard mode, once, before the
     * first of them starts (later ones wait for it): a trusted run of the pristine subject
     * (SharedCodeCache#pristineVariant), whose rewrites are then published. Without it every session of pandas would
     * rewrite its ~300 modules afresh (40 s, against 5 s warm). A warm-up that fails
     * is logged and not recorded; the session starts anyway and rewrites what it imports itself.
     */
    private void warmUp(Instance instance, GuardMode guardMode) {
        if (codeCache.partition(instance).isEmpty()) {
            return;
        }
        String key = codeCache.warmUpKey(instance, guardMode);
        if (codeCache.warmed(instance, key)) {
            return;
        }
        CompletableFuture<Void> created = new CompletableFuture<>();
        CompletableFuture<Void> running = warmUps.putIfAbsent(key, created);
        if (running == null) {
            try {
                runTrusted(instance, SharedCodeCache.pristineVariant(instance).orElseThrow(), guardMode, key);
                if (codeCache.warmed(instance, key)) {
                    // Its record on disk answers from now on; only a warm-up that failed (or could not publish) stays
                    // here, so it is not retried by every session.
                    warmUps.remove(key, created);
                }
            } catch (RuntimeException e) {
                LOG.warnf("the code-cache warm-up of %s failed: %s", instance.id(), e.getMessage());
            } finally {
                created.complete(null);
            }
        } else {
            running.join();
        }
    }

    /**
     * Runs the instance's variant without interception to its end, with no agent attached, and closes it. With a
     * warm-up key its healrt writes a private code cache, which is published into the shared one before the workspace
     * goes (a reference run publishes nothing: its rewrites are of the fix).
     */
    private UnattendedRun runTrusted(Instance instance, Variant variant, GuardMode guardMode, String warmUpKey) {
        String purpose = warmUpKey == null ? "reference" : "code-cache-warm-up";
        Session session = start(instance, variant, false, guardMode, Map.of("purpose", purpose), CompletableFuture::completedFuture, true,
                warmUpKey != null);
        try {
            session.ended().get(config.wallClockLimit().plusSeconds(CLOSE_WAIT_SECONDS).toMillis(), TimeUnit.MILLISECONDS);
            if (warmUpKey != null && session.runtimeReported()) {
                codeCache.publish(instance, warmUpKey, HealrtInvocation.privateCodeCache(session.workspace()));
            }
        } catch (TimeoutException | ExecutionException | IOException e) {
            LOG.warnf("%s: the %s run did not end cleanly: %s", session.name(), purpose, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SandboxException(Kind.INTERNAL, "INTERRUPTED", "interrupted while running " + instance.id() + " " + variant, e);
        } finally {
            close(session.name());
            unattended.remove(session.name());
        }
        Outcome outcome = session.finishedOutcome().orElse(Outcome.withoutReport(ExitCause.KILLED, -1, 0, "the run did not finish"));
        return new UnattendedRun(outcome, session.runtimeReported());
    }

    private Session start(Instance instance, Variant variant, boolean intercept, GuardMode guardMode, Map<String, String> labels,
                          Function<Outcome, CompletableFuture<Outcome>> completion, boolean uncounted, boolean warmUp) {
        Workspace workspace = materializer.materialize(instance, variant);
        String id = UUID.randomUUID().toString();
        Session session = new Session(id, workspace, labels, guardMode, sink, config.outputLimitBytes(), completion);
        if (uncounted) {
            unattended.add(session.name());
        }
        RuntimeChannel channel = null;
        try {
            channel = RuntimeChannel.listen(workspace.controlSocket());
            session.attach(channel);
            GroupProcess process = launcher.launch(invocation.prepare(workspace, intercept, guardMode, warmUp));
            SessionSupervisor supervisor = new SessionSupervisor(session, process, channel, config.wallClockLimit());
            supervisors.put(session.name(), supervisor);
            sessions.put(session.name(), session);
            supervisor.start();
            // However it ended (finished, wall clock, killed) and whether or not anyone closes it, it is closed and
            // forgotten after the retention: a client that went away leaves no workspace and no session behind.
            session.ended().whenComplete((done, failure) -> reaper.schedule(() -> forget(session.name()),
                    config.endedRetention().toMillis(), TimeUnit.MILLISECONDS));
        } catch (IOException | RuntimeException e) {
            if (channel != null) {
                channel.close();
            }
            materializer.delete(workspace.dir());
            unattended.remove(session.name());
            if (e instanceof SandboxException sandbox) {
                throw sandbox;
            }
            throw new SandboxException(Kind.INTERNAL, "SESSION_START_FAILED", "cannot start a session for " + instance.id() + ": " + e.getMessage(), e);
        }
        LOG.infof("%s: %s %s started in %s", session.name(), instance.id(), variant, workspace.dir());
        return session;
    }

    public SessionView get(String name) {
        return session(name).view();
    }

    public Multi<SessionEvent> watch(String name) {
        return session(name).watch();
    }

    /**
     * Runs a probe under its own time limit: {@code timeout} zero means the configured probe limit, which also caps
     * it (an agent may ask for less time, never more).
     */
    public ProbeOutcome probe(String name, String code, boolean inplace, Duration timeout) {
        if (timeout.isNegative()) {
            throw new SandboxException(Kind.INVALID_ARGUMENT, "PROBE_TIMEOUT_INVALID", "timeout_seconds must not be negative");
        }
        Session session = session(name);
        session.requireCrashed();
        Duration limit = timeout.isZero() || timeout.compareTo(config.probeTimeout()) > 0 ? config.probeTimeout() : timeout;
        return session.probe(code, inplace, limit, limit.plus(config.replyMargin()));
    }

    /** A heal, timed from the request to its answer (SandboxMetrics#healEnded) however it ends. */
    public HealOutcome heal(String name, String code, Resume resume) {
        long start = System.nanoTime();
        HealOutcome outcome = null;
        try {
            outcome = guardedHeal(name, code, resume);
            return outcome;
        } finally {
            metrics.healEnded(outcome, Duration.ofNanos(System.nanoTime() - start));
        }
    }

    /** The heal path: HealCore gate first (a rejected heal never reaches the runtime), then the runtime. */
    private HealOutcome guardedHeal(String name, String code, Resume resume) {
        Session session = session(name);
        CrashContext crash = session.requireCrashed();
        GateAnswer verdict = gate.check(code == null ? "" : code);
        if (!verdict.allowed()) {
            GuardDecision rejected = new GuardDecision(crash.healPoint(), GuardStage.GATE, GuardVerdict.REJECTED, verdict.summary());
            HealOutcome outcome = new HealOutcome(false,
                    new HealOutcome.HealError(true, "HEALCORE_REJECTED", "the heal is outside HealCore: " + verdict.summary()),
                    "", List.of(), resume, List.of(rejected));
            session.recordRefusedHeal(outcome);
            session.reportGuardDecision(rejected);
            return outcome;
        }
        GuardDecision accepted = new GuardDecision(crash.healPoint(), GuardStage.GATE, GuardVerdict.ACCEPTED,
                "inside HealCore" + (verdict.gateVersion().isEmpty() ? "" : " (gate " + verdict.gateVersion() + ")"));
        session.recordGuardDecision(accepted);
        session.reportGuardDecision(accepted);
        Duration timeout = config.healTimeout().plus(config.replyMargin());
        HealOutcome outcome = session.guardMode() == GuardMode.OFF
                ? session.heal(code, resume, List.of(accepted), timeout)
                : session.heal(code, resume, List.of(accepted), timeout, analysis -> {
                    // The static stage (docs/healguard.md §1): the dry run's Δk and the code that runs next.
                    StaticDecision decided = staticGuard.decide(session.guardMode(), session.workspace().instance().policy(), code, analysis);
                    session.recordGuardDecision(decided.decision());
                    session.reportGuardDecision(decided.decision());
                    return decided;
                });
        if (outcome.applied()) {
            session.reportHealApplied(crash.healPoint(), code, outcome.resume(), crash.exceptionType());
        }
        return outcome;
    }

    public SessionView reraise(String name) {
        Session session = session(name);
        session.reraise();
        return session.view();
    }

    /** The session's workspace, for the read-only repository view; refused once the session is closed. */
    public Workspace workspace(String name) {
        Session session = session(name);
        if (!Files.isDirectory(session.workspace().sourceDir())) {
            throw new SandboxException(Kind.FAILED_PRECONDITION, "WORKSPACE_DELETED", name + " is closed: its workspace is gone");
        }
        return session.workspace();
    }

    /** Kills the process group, waits for its end to be recorded, and deletes the workspace. Idempotent. */
    public SessionView close(String name) {
        Session session = session(name);
        SessionSupervisor supervisor = supervisors.remove(name);
        if (supervisor != null) {
            supervisor.kill();
            try {
                session.ended().get(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                LOG.warnf("%s: the process did not end within %d s of being killed", name, CLOSE_WAIT_SECONDS);
            } catch (Exception e) {
                LOG.warnf(e, "%s: waiting for the process end failed", name);
            }
            session.markClosed();
            materializer.delete(session.workspace().dir());
        }
        return session.view();
    }

    /** Closes the session if nobody did, and drops it from memory. */
    private void forget(String name) {
        try {
            close(name);
        } catch (RuntimeException e) {
            LOG.warnf(e, "%s: closing it after its retention failed", name);
        } finally {
            sessions.remove(name);
        }
    }

    /** The sessions this sandbox still holds in memory. */
    public int sessionsHeld() {
        return sessions.size();
    }

    @PreDestroy
    void closeAll() {
        reaper.shutdownNow();
        for (String name : List.copyOf(supervisors.keySet())) {
            try {
                close(name);
            } catch (RuntimeException e) {
                LOG.warnf(e, "%s: close at shutdown failed", name);
            }
        }
    }

    private Session session(String name) {
        Session session = name == null ? null : sessions.get(name);
        if (session == null) {
            throw new SandboxException(Kind.NOT_FOUND, "SESSION_NOT_FOUND", "no session named '" + name + "'");
        }
        return session;
    }
}
