package io.healbench.agent.service.external;

import io.healbench.agent.config.AgentSettings;
import io.healbench.agent.service.AgentMetrics;
import io.healbench.agent.service.AgentSandbox;
import io.healbench.agent.service.AgentSandboxFailure;
import io.healbench.agent.service.AttemptResult;
import io.healbench.agent.service.AttemptRunner;
import io.healbench.agent.service.llm.Action;
import io.healbench.common.outcome.ExitCause;
import io.healbench.common.outcome.FailureClass;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.logging.Logger;

/**
 * The external API's domain (docs/agents.md, "The external API"): claims, actions and leases, whatever the protocol
 * (gRPC or MCP). A claim takes an attempt from bench-service's ledger and runs it here, on the same
 * {@link AttemptRunner} as the workers' attempts, with the {@link ExternalAgent} in the agent's place; its result
 * goes to bench-service as theirs do.
 *
 * <p>The lease rule: the gateway renews a claim's lease with bench-service while the agent is there (a stream of it is
 * open, or it sent something within the lease). When it is gone longer, the claim lapses: if the agent had submitted
 * no heal or reraise, and the attempt has lapsed fewer than {@code max-requeues} times, its session is closed and the
 * attempt is queued again for any agent; otherwise its crashes are reraised, the program runs to its end, and the
 * attempt ends as the agent's failure (exit {@code claim_lapsed}). When the gateway itself dies, bench-service finds
 * the lease expired and queues the attempt again (an infrastructure matter, never the agent's).
 */
@ApplicationScoped
public class ExternalAttempts {

    private static final Logger LOG = Logger.getLogger(ExternalAttempts.class);
    private static final Pattern ATTEMPT_NAME = Pattern.compile("runs/([A-Za-z0-9-]{1,64})/attempts/([A-Za-z0-9-]{1,64})");
    private static final Pattern RUN_NAME = Pattern.compile("runs/([A-Za-z0-9-]{1,64})");
    private static final Pattern AGENT_NAME = Pattern.compile("[A-Za-z0-9._-]{0,64}");
    private static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(30);

    private final AttemptClaims claims;
    private final AttemptRunner runner;
    private final AgentSandbox sandbox;
    private final ExternalAttemptRegistry registry;
    private final AttemptOutcomes outcomes;
    private final AgentMetrics metrics;
    private final ExternalSettings settings;
    private final Duration answerTimeout;
    /** This gateway, as the holder of its claims. */
    private final String holder = "gateway-" + UUID.randomUUID();
    private final ExecutorService runners = Executors.newCachedThreadPool(daemon("external-attempt"));
    private final ScheduledExecutorService keeper = Executors.newSingleThreadScheduledExecutor(daemon("external-leases"));

    public ExternalAttempts(AttemptClaims claims, AttemptRunner runner, AgentSandbox sandbox,
            ExternalAttemptRegistry registry, AttemptOutcomes outcomes, AgentMetrics metrics, ExternalSettings settings,
            AgentSettings agentSettings) {
        this.claims = claims;
        this.runner = runner;
        this.sandbox = sandbox;
        this.registry = registry;
        this.outcomes = outcomes;
        this.metrics = metrics;
        this.settings = settings;
        this.answerTimeout = agentSettings.attemptTimeout().plusSeconds(30);
        long period = Math.max(200, settings.lease().toMillis() / 3);
        keeper.scheduleWithFixedDelay(this::keepLeases, period, period, TimeUnit.MILLISECONDS);
    }

    @PreDestroy
    void stop() {
        keeper.shutdownNow();
        runners.shutdownNow();
    }

    public int leaseSeconds() {
        return (int) Math.max(1, settings.lease().toSeconds());
    }

    /**
     * Claims {@code target} for {@code caller}'s agent {@code agentName} (empty: any) and returns once its program
     * first stands still. A named attempt that {@code caller} already holds here is taken up again as it stands (a
     * reconnect); {@code stream} says whether an open stream now keeps the claim alive (see {@link #detach}).
     */
    public ExternalClaim claim(ExternalCaller caller, String target, String agentName, boolean stream) {
        if (target == null || !(RUN_NAME.matcher(target).matches() || ATTEMPT_NAME.matcher(target).matches())) {
            throw ExternalFailure.badArgument("claim needs `runs/{run}` or `runs/{run}/attempts/{attempt}`, got '" + target + "'");
        }
        if (!AGENT_NAME.matcher(agentName).matches()) {
            throw ExternalFailure.badArgument("an agent's name is up to 64 of A-Z a-z 0-9 . _ -");
        }
        Matcher named = ATTEMPT_NAME.matcher(target);
        if (named.matches()) {
            ExternalAttempt held = registry.byId(named.group(2)).orElse(null);
            if (held != null && held.owner().equals(caller) && held.name().equals(target) && !held.finished()
                    && held.stop() == null) {
                if (stream) {
                    held.attach();
                }
                return describe(held, held.current());
            }
        }
        AttemptClaims.Claim claim = claims.claim(caller.tenant(), target, agentName, holder, settings.lease());
        ExternalAttempt attempt = new ExternalAttempt(claim, caller);
        if (stream) {
            attempt.attach();
        }
        registry.add(attempt);
        runners.execute(() -> drive(attempt));
        ExternalStep first = await(attempt.firstStep(), attempt);
        return describe(attempt, first);
    }

    /** Runs one action of the attempt {@code attemptName} that {@code caller} holds, and returns its answer. */
    public ExternalReply act(ExternalCaller caller, String attemptName, Map<String, Object> arguments, String tool) {
        ExternalAttempt attempt = held(caller, attemptName);
        return await(attempt.submit(new Action(tool, "", arguments)), attempt);
    }

    /** What the agent said it used since its last report; flagged as its own, never verified. */
    public ExternalBudget reportUsage(ExternalCaller caller, String attemptName, SelfReportedUsage usage) {
        ExternalAttempt attempt = held(caller, attemptName);
        attempt.selfReport(usage);
        return attempt.budget();
    }

    /** A stream that kept the claim alive closed: from now on the lease runs unless the agent comes back. */
    public void detach(ExternalCaller caller, String attemptName) {
        registry.byId(idOf(attemptName)).filter(a -> a.owner().equals(caller)).ifPresent(ExternalAttempt::detach);
    }

    public ExternalBudget budget(ExternalCaller caller, String attemptName) {
        return held(caller, attemptName).budget();
    }

    private ExternalAttempt held(ExternalCaller caller, String attemptName) {
        if (attemptName == null || !ATTEMPT_NAME.matcher(attemptName).matches()) {
            throw ExternalFailure.badArgument("an attempt is named `runs/{run}/attempts/{attempt}`, got '" + attemptName + "'");
        }
        // Another tenant's or agent's attempt looks exactly like no attempt at all.
        return registry.byId(idOf(attemptName))
                .filter(a -> a.owner().equals(caller) && a.name().equals(attemptName))
                .orElseThrow(() -> ExternalFailure.attemptNotFound(attemptName));
    }

    private static String idOf(String attemptName) {
        Matcher m = ATTEMPT_NAME.matcher(attemptName == null ? "" : attemptName);
        return m.matches() ? m.group(2) : "";
    }

    private ExternalClaim describe(ExternalAttempt attempt, ExternalStep step) {
        return new ExternalClaim(attempt.name(), attempt.spec().instanceId(), attempt.spec().repeat(), leaseSeconds(),
                step, attempt.budget());
    }

    /** Waits for an answer; a request in flight keeps the claim alive however long the program takes to answer. */
    private <T> T await(CompletableFuture<T> answer, ExternalAttempt attempt) {
        attempt.attach();
        try {
            return answer.get(answerTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ExternalFailure failure) {
                throw failure;
            }
            throw ExternalFailure.fatal(ExternalFailure.Kind.UNAVAILABLE, "SANDBOX_UNAVAILABLE",
                    "the gateway failed " + attempt.name() + ": " + e.getCause());
        } catch (TimeoutException e) {
            throw ExternalFailure.fatal(ExternalFailure.Kind.UNAVAILABLE, "SANDBOX_UNAVAILABLE",
                    attempt.name() + " did not answer within " + answerTimeout.toSeconds() + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ExternalFailure.fatal(ExternalFailure.Kind.UNAVAILABLE, "SANDBOX_UNAVAILABLE", "the gateway is stopping");
        } finally {
            attempt.detach();
        }
    }

    /** The attempt from its claim to its end; its result goes to bench-service unless the attempt is queued again. */
    private void drive(ExternalAttempt attempt) {
        AttemptResult result;
        try {
            result = runner.run(attempt.spec(), attempt::sessionStarted);
        } catch (RuntimeException bug) {
            LOG.errorf(bug, "external attempt %s failed unexpectedly", attempt.name());
            result = new AttemptResult(attempt.session(), false, false, 0, 0, 0, "", ExitCause.ERROR, 0,
                    FailureClass.INFRASTRUCTURE, "the gateway failed: " + bug, false, 0.0,
                    attempt.record().usage(), "");
        }
        attempt.finish(result);
        registry.remove(attempt);
        AttemptClaims.Claim claim = attempt.claim();
        String tenant = attempt.owner().tenant();
        if (attempt.stop() == ExternalAttempt.Stop.LAPSED && requeues(attempt)) {
            try {
                claims.release(tenant, attempt.spec().attemptId(), claim.claimId(), "the agent went away before acting");
                LOG.infof("claim on %s lapsed before any heal or reraise; the attempt is queued again", attempt.name());
            } catch (ExternalFailure failure) {
                // bench-service queues it again itself when the lease runs out.
                LOG.warnf("could not release %s: %s", attempt.name(), failure.getMessage());
            }
            return;
        }
        if (attempt.stop() == ExternalAttempt.Stop.LAPSED) {
            result = result.asAgentFailure("the agent's claim lapsed (it disconnected or went silent for "
                    + settings.lease().toSeconds() + " s); its crashes were reraised");
        }
        try {
            outcomes.completed(attempt.spec(), result).toCompletableFuture().get(PUBLISH_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            metrics.attemptEnded(attempt.spec(), result);
            LOG.infof("external attempt %s completed: failure_class=%s proceeded=%s heal_points=%d applied=%d",
                    attempt.name(), result.failureClass().wireName(), result.proceeded(), result.healPoints(),
                    result.healsApplied());
        } catch (Exception e) {
            // Not renewed any more, the claim runs out and bench-service queues the attempt again: nothing is lost.
            LOG.errorf("could not publish the end of %s: %s", attempt.name(), e);
        }
    }

    private boolean requeues(ExternalAttempt attempt) {
        return !attempt.actedOnProgram() && attempt.claim().lapses() < settings.maxRequeues();
    }

    /** Renews the leases of agents still there, and lets the others' claims lapse by the rule. */
    private void keepLeases() {
        for (ExternalAttempt attempt : registry.all()) {
            if (attempt.finished() || attempt.stop() == ExternalAttempt.Stop.LAPSED) {
                continue;
            }
            try {
                if (attempt.alive(settings.lease())) {
                    claims.renew(attempt.owner().tenant(), attempt.spec().attemptId(), attempt.claim().claimId(),
                            settings.lease());
                } else {
                    lapse(attempt);
                }
            } catch (ExternalFailure failure) {
                if ("CLAIM_LAPSED".equals(failure.reason())) {
                    // bench-service gave the attempt to the queue (this gateway was too slow): it is no longer ours.
                    LOG.warnf("bench-service took back %s: %s", attempt.name(), failure.getMessage());
                    lapse(attempt);
                } else {
                    LOG.warnf("could not renew the claim on %s: %s", attempt.name(), failure.getMessage());
                }
            } catch (RuntimeException e) {
                LOG.errorf(e, "lease keeping failed for %s", attempt.name());
            }
        }
    }

    private void lapse(ExternalAttempt attempt) {
        attempt.lapse();
        LOG.infof("the claim on %s lapsed (acted=%s, earlier lapses=%d)", attempt.name(), attempt.actedOnProgram(),
                attempt.claim().lapses());
        if (requeues(attempt) && !attempt.session().isEmpty()) {
            // The attempt starts afresh for the next agent: this run of it ends now, not at the program's end.
            try {
                sandbox.close(attempt.session());
            } catch (AgentSandboxFailure failure) {
                LOG.warnf("could not close %s: %s", attempt.session(), failure.getMessage());
            }
        }
    }

    private static java.util.concurrent.ThreadFactory daemon(String prefix) {
        java.util.concurrent.atomic.AtomicInteger numbers = new java.util.concurrent.atomic.AtomicInteger();
        return task -> {
            Thread thread = new Thread(task, prefix + "-" + numbers.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
