package io.healbench.agent.service.external;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.healbench.agent.service.AgentDecision;
import io.healbench.agent.service.AgentRecord;
import io.healbench.agent.service.AttemptResult;
import io.healbench.agent.service.AttemptSpec;
import io.healbench.agent.service.HealPoint;
import io.healbench.agent.service.Limits;
import io.healbench.agent.service.RejectedHeal;
import io.healbench.agent.service.llm.Action;
import io.healbench.agent.service.llm.ActionCatalog;
import io.healbench.agent.service.llm.ActionSurface;
import io.healbench.agent.service.llm.HealPointExit;
import io.healbench.agent.service.llm.Trajectory;
import io.healbench.common.outcome.FailureClass;
import io.healbench.common.usage.AgentUsage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One claimed attempt, between its external agent and the attempt runner. The agent's actions queue here; the runner's
 * thread, inside {@link #decide}, runs each look on the same {@link ActionSurface} the internal agents use and answers
 * it, until a heal or reraise is the decision. That action is answered when the program stands still again: at the
 * next heal point, with the heal refused at the same one, or at the end. Counters and the trajectory are the runner
 * thread's; what the API threads read is guarded by this object's lock.
 */
final class ExternalAttempt {

    static final String API_VERSION = "agent-gateway-v1";
    private static final List<String> TOOLS = ActionCatalog.allNames();

    /** Why the attempt stopped taking actions before its end. */
    enum Stop { LAPSED, EXHAUSTED }

    private record Pending(Action action, CompletableFuture<ExternalReply> reply) {
    }

    private final AttemptSpec spec;
    private final ExternalCaller owner;
    private final String name;
    private final AttemptClaims.Claim claim;
    private final Limits limits;
    private final long deadlineNanos;
    private final BlockingQueue<Pending> inbox = new LinkedBlockingQueue<>();
    private final CompletableFuture<ExternalStep> firstStep = new CompletableFuture<>();
    private final Trajectory trajectory;
    private final AtomicInteger submitted = new AtomicInteger();
    private final AtomicInteger streams = new AtomicInteger();

    // The runner thread's.
    private Pending decisionPending;
    private List<String> changed = List.of();
    private int exitRecordedFor;
    private int actionSeq;

    // Guarded by this.
    private int healPoint;
    private int healsAtPoint;
    private int probesAtPoint;
    private int probes;
    private int explores;
    private int heals;
    private int reraises;
    private final List<String> exits = new ArrayList<>();
    private int reportedCalls;
    private long reportedInput;
    private long reportedOutput;
    private double reportedCost;
    private String reportedModel = "";
    private ExternalStep current;
    private String session = "";

    private volatile Stop stop;
    private volatile boolean actedOnProgram;
    private volatile boolean finished;
    private volatile long lastSeenNanos = System.nanoTime();

    ExternalAttempt(AttemptClaims.Claim claim, ExternalCaller owner) {
        this.spec = claim.spec();
        this.owner = owner;
        this.claim = claim;
        this.name = "runs/" + spec.runId() + "/attempts/" + spec.attemptId();
        this.limits = spec.llm().limits();
        Duration wall = limits.wallPerAttempt().isZero() ? Limits.DEFAULTS.wallPerAttempt() : limits.wallPerAttempt();
        this.deadlineNanos = System.nanoTime() + wall.toNanos();
        this.trajectory = Trajectory.external(spec.attemptId(), spec.agent(), API_VERSION, limits);
    }

    AttemptSpec spec() {
        return spec;
    }

    String name() {
        return name;
    }

    AttemptClaims.Claim claim() {
        return claim;
    }

    ExternalCaller owner() {
        return owner;
    }

    boolean finished() {
        return finished;
    }

    boolean actedOnProgram() {
        return actedOnProgram;
    }

    Stop stop() {
        return stop;
    }

    CompletableFuture<ExternalStep> firstStep() {
        return firstStep;
    }

    synchronized ExternalStep current() {
        return current;
    }

    synchronized String session() {
        return session;
    }

    synchronized void sessionStarted(String name) {
        session = name;
    }

    // ---- the API's side --------------------------------------------------------------------------------------------

    void attach() {
        streams.incrementAndGet();
        seen();
    }

    void detach() {
        streams.decrementAndGet();
        seen();
    }

    void seen() {
        lastSeenNanos = System.nanoTime();
    }

    /** The agent is still there: a stream of it is open, or it sent something within the lease. */
    boolean alive(Duration lease) {
        return streams.get() > 0 || System.nanoTime() - lastSeenNanos < lease.toNanos();
    }

    /** Queues an action for the runner's thread; the future completes with its answer or an {@link ExternalFailure}. */
    CompletableFuture<ExternalReply> submit(Action action) {
        seen();
        if (finished) {
            throw ExternalFailure.fatal(ExternalFailure.Kind.FAILED_PRECONDITION, "ATTEMPT_FINISHED", name + " is over");
        }
        if (stop == Stop.LAPSED) {
            throw ExternalFailure.fatal(ExternalFailure.Kind.ABORTED, "CLAIM_LAPSED", "the claim on " + name + " lapsed");
        }
        int count = submitted.incrementAndGet();
        if (stop == Stop.EXHAUSTED || (limits.callsPerAttempt() > 0 && count > limits.callsPerAttempt())) {
            stop = Stop.EXHAUSTED;
            throw ExternalFailure.fatal(ExternalFailure.Kind.RESOURCE_EXHAUSTED, "BUDGET_EXHAUSTED",
                    "the attempt's " + limits.callsPerAttempt() + " actions are spent; its crashes are reraised");
        }
        CompletableFuture<ExternalReply> reply = new CompletableFuture<>();
        inbox.add(new Pending(action, reply));
        return reply;
    }

    synchronized void selfReport(SelfReportedUsage usage) {
        seen();
        reportedCalls += usage.llmCalls();
        reportedInput += usage.inputTokens();
        reportedOutput += usage.outputTokens();
        reportedCost += usage.costUsd();
        if (!usage.model().isEmpty()) {
            reportedModel = usage.model();
        }
        Map<String, Object> totals = new LinkedHashMap<>();
        totals.put("llm_calls", reportedCalls);
        totals.put("input_tokens", reportedInput);
        totals.put("output_tokens", reportedOutput);
        totals.put("cost_usd", reportedCost);
        trajectory.selfReported(reportedModel, totals);
    }

    /** The agent is gone: the runner's thread stops waiting for it. */
    void lapse() {
        stop = Stop.LAPSED;
    }

    synchronized ExternalBudget budget() {
        long wall = Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
        int actions = limits.callsPerAttempt() > 0 ? Math.max(0, limits.callsPerAttempt() - submitted.get()) : -1;
        int probesLeft = left(limits.probesPerAttempt(), probes);
        int probesHere = left(limits.probesPerHealPoint(), probesAtPoint);
        int probeBudget = probesLeft < 0 ? probesHere : probesHere < 0 ? probesLeft : Math.min(probesLeft, probesHere);
        return new ExternalBudget(wall, actions, probeBudget, left(limits.healsPerHealPoint(), healsAtPoint));
    }

    private static int left(int limit, int used) {
        return limit > 0 ? Math.max(0, limit - used) : -1;
    }

    // ---- the runner's side -----------------------------------------------------------------------------------------

    AgentDecision decide(HealPoint point) {
        int at = point.crash().healPoint();
        boolean samePoint;
        synchronized (this) {
            samePoint = at == healPoint;
            if (!samePoint) {
                healPoint = at;
                healsAtPoint = 0;
                probesAtPoint = 0;
            }
            current = ExternalStep.crashed(point.crash());
        }
        if (decisionPending != null) {
            Pending answered = decisionPending;
            decisionPending = null;
            if (samePoint && !point.rejected().isEmpty()) {
                RejectedHeal refused = point.rejected().get(point.rejected().size() - 1);
                if (budget().healsLeft() == 0) {
                    answered.reply.completeExceptionally(ExternalFailure.recoverable(ExternalFailure.Kind.FAILED_PRECONDITION,
                            "HEAL_REJECTED", refused.reason() + " (no heals are left at this heal point: its crash is"
                                    + " reraised; get_crash shows where the program stands next)"));
                    return end(at, HealPointExit.LIMITS_EXCEEDED, "no heals left at this heal point");
                }
                answered.reply.completeExceptionally(ExternalFailure.recoverable(ExternalFailure.Kind.FAILED_PRECONDITION,
                        "HEAL_REJECTED", refused.reason()));
            } else {
                answered.reply.complete(moved(answered, ExternalStep.crashed(point.crash())));
            }
        } else {
            firstStep.complete(ExternalStep.crashed(point.crash()));
        }
        ActionSurface surface = new ActionSurface(point);
        while (true) {
            if (stop == Stop.LAPSED) {
                return end(at, HealPointExit.CLAIM_LAPSED, "the agent's claim lapsed");
            }
            if (stop == Stop.EXHAUSTED) {
                return end(at, HealPointExit.LIMITS_EXCEEDED, "the attempt's actions are spent");
            }
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                return end(at, HealPointExit.TIME_EXCEEDED, "the attempt's wall time is spent");
            }
            Pending next;
            try {
                next = inbox.poll(Math.min(left, TimeUnit.SECONDS.toNanos(1)), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return end(at, HealPointExit.ERROR, "the gateway is stopping");
            }
            if (next != null) {
                Optional<AgentDecision> decision = handle(next, surface, at);
                if (decision.isPresent()) {
                    return decision.get();
                }
            }
        }
    }

    private Optional<AgentDecision> handle(Pending pending, ActionSurface surface, int at) {
        ActionCatalog.Checked checked = ActionCatalog.check(pending.action, TOOLS);
        if (!checked.ok()) {
            pending.reply.completeExceptionally(ExternalFailure.badArgument(checked.error()));
            return Optional.empty();
        }
        Action action = new Action(checked.action().tool(), "call-" + (++actionSeq), checked.action().arguments());
        ObjectNode step = trajectory.action(action, at);
        String tool = action.tool();
        synchronized (this) {
            if (tool.equals(ActionCatalog.PROBE)) {
                if (budget().probesLeft() == 0) {
                    trajectory.observe(step, action.callId(), "not run: no probes are left");
                    pending.reply.completeExceptionally(ExternalFailure.recoverable(
                            ExternalFailure.Kind.RESOURCE_EXHAUSTED, "PROBE_BUDGET", "no probes are left"));
                    return Optional.empty();
                }
                probes++;
                probesAtPoint++;
            } else if (ActionCatalog.explores(tool)) {
                explores++;
            } else if (tool.equals(ActionCatalog.HEAL)) {
                heals++;
                healsAtPoint++;
            } else if (tool.equals(ActionCatalog.RERAISE)) {
                reraises++;
            }
        }
        ActionSurface.Result result = surface.run(action);
        if (result.decided()) {
            actedOnProgram = true;
            trajectory.observe(step, action.callId(), tool.equals(ActionCatalog.HEAL) ? "heal submitted" : "reraised");
            decisionPending = pending;
            changed = List.of();
            return Optional.of(result.decision());
        }
        trajectory.observe(step, action.callId(), result.observation());
        if (!result.refusal().isEmpty()) {
            pending.reply.completeExceptionally(ExternalFailure.recoverable(ExternalFailure.Kind.FAILED_PRECONDITION,
                    "TOOL_REFUSED", result.refusal()));
        } else {
            pending.reply.complete(new ExternalReply(result.value(), result.observation(), budget()));
        }
        return Optional.empty();
    }

    /** Ends a heal point without the agent: the crash is reraised, with the exit that says why. */
    private AgentDecision end(int at, HealPointExit exit, String why) {
        recordExit(at, exit, why);
        return new AgentDecision.Reraise(why);
    }

    private synchronized void recordExit(int at, HealPointExit exit, String why) {
        if (exitRecordedFor == at) {
            return;
        }
        exitRecordedFor = at;
        exits.add(exit.wireName());
        trajectory.healPointEnded(at, exit, why);
    }

    void healApplied(List<String> changedLocations) {
        changed = List.copyOf(changedLocations);
    }

    void healPointEnded(int at, boolean healed) {
        recordExit(at, healed ? HealPointExit.HEALED : HealPointExit.RERAISED, healed ? "a heal was applied" : "reraised");
    }

    /** The answer to a heal or reraise: where the program stands now. */
    private ExternalReply moved(Pending pending, ExternalStep step) {
        boolean heal = pending.action.tool().equals(ActionCatalog.HEAL);
        Object value = heal ? new ExternalReply.Healed(changed, step) : step;
        String observation = (heal ? "applied" + (changed.isEmpty() ? "" : "; changed: " + String.join(", ", changed))
                : "reraised") + "\n\n" + step.render();
        return new ExternalReply(value, observation, budget());
    }

    /** The attempt ended: whoever waits hears how, and nothing later is taken. */
    void finish(AttemptResult result) {
        finished = true;
        ExternalStep end = ExternalStep.ended(new ExternalStep.Finished(result.proceeded(), result.exitCause(),
                result.healPoints()));
        synchronized (this) {
            current = end;
        }
        ExternalFailure platform = ExternalFailure.fatal(ExternalFailure.Kind.UNAVAILABLE, "SANDBOX_UNAVAILABLE",
                "the platform failed this attempt (not counted against the agent): " + result.detail());
        boolean platformFailed = result.failureClass() == FailureClass.INFRASTRUCTURE;
        if (decisionPending != null) {
            if (platformFailed) {
                decisionPending.reply.completeExceptionally(platform);
            } else {
                decisionPending.reply.complete(moved(decisionPending, end));
            }
            decisionPending = null;
        }
        if (platformFailed) {
            firstStep.completeExceptionally(platform);
        } else {
            firstStep.complete(end);
        }
        for (Pending left; (left = inbox.poll()) != null; ) {
            left.reply.completeExceptionally(ExternalFailure.fatal(ExternalFailure.Kind.FAILED_PRECONDITION,
                    "ATTEMPT_FINISHED", name + " is over"));
        }
    }

    /** The agent's record: what the server saw it do, with what it reported of itself. */
    synchronized AgentRecord record() {
        boolean reported = reportedCalls > 0 || reportedInput > 0 || reportedOutput > 0 || reportedCost > 0;
        AgentUsage usage = new AgentUsage(reportedCalls, reportedInput, 0, reportedOutput, reportedCost, true,
                probes, explores, heals, reraises, 0, exits, reported);
        return new AgentRecord(usage, trajectory.toJson(usage), "");
    }
}
