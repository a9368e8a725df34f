package io.healbench.bench.service;

import io.healbench.bench.repository.BenchAttempt;
import io.healbench.bench.repository.BenchAttemptRepository;
import io.healbench.bench.repository.BenchRun;
import io.healbench.bench.repository.BenchRunRepository;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * The ledger of claims on external runs' attempts (docs/agents.md, "The external API"). An external run's attempts are
 * never put on the work queue: they stay QUEUED here until an agent-service gateway claims one for an agent of the
 * run's tenant. A claim has a lease the gateway renews. A claim given back returns the attempt to the queue (the
 * gateway's lease rule decides when, docs/agents.md, "Leases"); so does one whose lease ran out because its gateway is
 * gone, until the attempt has lapsed {@value #MAX_LAPSES} times: then it ends as an infrastructure failure, so that a
 * run always ends. Each lapse is counted on the attempt.
 */
@ApplicationScoped
public class BenchClaims {

    private static final Logger LOG = Logger.getLogger(BenchClaims.class);
    static final String EXTERNAL = "external";
    static final int MAX_LAPSES = 5;
    private static final Duration MAX_LEASE = Duration.ofMinutes(10);

    private final BenchRunRepository runs;
    private final BenchAttemptRepository attempts;
    private final BenchRunNotifier notifier;
    private final BenchEventIngestor ingestor;

    public BenchClaims(BenchRunRepository runs, BenchAttemptRepository attempts, BenchRunNotifier notifier,
            BenchEventIngestor ingestor) {
        this.runs = runs;
        this.attempts = attempts;
        this.notifier = notifier;
        this.ingestor = ingestor;
    }

    /** A run whose attempts wait for external agents: agent {@code external} or {@code external:NAME}. */
    public static boolean external(String agent) {
        return agent.equals(EXTERNAL) || agent.startsWith(EXTERNAL + ":");
    }

    /** A claim made: the attempt (now RUNNING), its run, and the claim's id. */
    public record Claimed(BenchRun run, BenchAttempt attempt) {
    }

    /**
     * Claims the run's next queued attempt ({@code attemptId} null) or the named one, for the tenant's agent
     * {@code agentName}. Another tenant's run, or a run not made for this agent, is NOT_FOUND like no run at all.
     */
    public Uni<Claimed> claim(String tenant, String runId, String attemptId, String agentName, String holder, Duration lease) {
        Duration held = clamp(lease);
        return Panache.withTransaction(() -> runs.lockInTenant(tenant, runId).chain(run -> {
            if (run == null || !external(run.agent) || !forAgent(run.agent, agentName)) {
                return Uni.createFrom().failure(notFound(attemptId == null ? "runs/" + runId
                        : "runs/" + runId + "/attempts/" + attemptId));
            }
            Uni<BenchAttempt> candidate = attemptId == null ? attempts.lockNextQueued(tenant, runId)
                    : attempts.lockInTenant(tenant, attemptId).map(a -> a != null && a.runId.equals(runId) ? a : null);
            return candidate.chain(attempt -> {
                if (attempt == null && attemptId != null) {
                    return Uni.createFrom().failure(notFound("runs/" + runId + "/attempts/" + attemptId));
                }
                if (attempt == null || attempt.state != BenchAttempt.State.QUEUED) {
                    return Uni.createFrom().failure(new BenchException(BenchException.Kind.NOT_FOUND, "NOTHING_TO_CLAIM",
                            attempt == null ? "runs/" + runId + " has no queued attempt now"
                                    : "runs/" + runId + "/attempts/" + attemptId + " is " + attempt.state.name().toLowerCase()));
                }
                Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
                attempt.state = BenchAttempt.State.RUNNING;
                attempt.startTime = now;
                attempt.claimId = UUID.randomUUID().toString();
                attempt.claimHolder = holder;
                attempt.claimExpireTime = now.plus(held);
                if (run.state == BenchRun.State.PENDING) {
                    run.state = BenchRun.State.RUNNING;
                }
                run.updateTime = now;
                return Uni.createFrom().item(new Claimed(run, attempt));
            });
        })).invoke(claimed -> notifier.changed(tenant, runId));
    }

    /** Extends a claim's lease; ABORTED (CLAIM_LAPSED) when the attempt is no longer held by this claim. */
    public Uni<BenchAttempt> renew(String tenant, String attemptId, String claimId, Duration lease) {
        return Panache.withTransaction(() -> attempts.lockInTenant(tenant, attemptId).map(attempt -> {
            held(attempt, attemptId, claimId);
            attempt.claimExpireTime = Instant.now().truncatedTo(ChronoUnit.MICROS).plus(clamp(lease));
            return attempt;
        }));
    }

    /** Gives a claim back: the attempt is queued again, one lapse more. */
    public Uni<Void> release(String tenant, String attemptId, String claimId, String reason) {
        return Panache.withTransaction(() -> attempts.lockInTenant(tenant, attemptId).map(attempt -> {
            held(attempt, attemptId, claimId);
            requeue(attempt);
            LOG.infof("claim %s on attempt %s given back: %s", claimId, attemptId, reason);
            return attempt;
        })).invoke(attempt -> notifier.changed(tenant, attempt.runId)).replaceWithVoid();
    }

    /**
     * Returns the attempts whose lease ran out (their gateway is gone) to the queue; one that lapsed
     * {@value #MAX_LAPSES} times ends as an infrastructure failure instead, through the events' one path.
     */
    public Uni<Integer> reapLapsed() {
        Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        return Panache.withTransaction(() -> attempts.lapsedClaims(now).invoke(lapsed -> {
            for (BenchAttempt attempt : lapsed) {
                LOG.warnf("the lease of claim %s on attempt %s ran out (holder %s)", attempt.claimId, attempt.id,
                        attempt.claimHolder);
                if (attempt.lapses + 1 >= MAX_LAPSES) {
                    // Kept out of the queue while its end is recorded, so no gateway claims it meanwhile.
                    attempt.lapses++;
                    attempt.claimId = null;
                    attempt.claimHolder = null;
                    attempt.claimExpireTime = null;
                } else {
                    requeue(attempt);
                }
            }
        })).chain(lapsed -> {
            lapsed.forEach(attempt -> notifier.changed(attempt.tenant, attempt.runId));
            List<Uni<Void>> endings = lapsed.stream().filter(a -> a.lapses >= MAX_LAPSES).map(this::giveUp).toList();
            Uni<Void> ended = endings.isEmpty() ? Uni.createFrom().voidItem()
                    : Uni.join().all(endings).andCollectFailures().replaceWithVoid();
            return ended.replaceWith(lapsed.size());
        });
    }

    private Uni<Void> giveUp(BenchAttempt attempt) {
        String detail = "the claims on this attempt lapsed " + attempt.lapses + " times: no gateway kept one";
        return ingestor.ingest(BenchIncomingEvent.infrastructureFailure(attempt.tenant, attempt.runId, attempt.id, detail));
    }

    private static void requeue(BenchAttempt attempt) {
        attempt.state = BenchAttempt.State.QUEUED;
        attempt.claimId = null;
        attempt.claimHolder = null;
        attempt.claimExpireTime = null;
        attempt.lapses++;
    }

    private static void held(BenchAttempt attempt, String attemptId, String claimId) {
        if (attempt == null) {
            throw notFound("attempt " + attemptId);
        }
        if (attempt.state != BenchAttempt.State.RUNNING || !claimId.equals(attempt.claimId)) {
            throw new BenchException(BenchException.Kind.ABORTED, "CLAIM_LAPSED",
                    "claim " + claimId + " no longer holds attempt " + attemptId);
        }
    }

    private static boolean forAgent(String runAgent, String agentName) {
        return runAgent.equals(EXTERNAL) || runAgent.equals(EXTERNAL + ":" + agentName);
    }

    private static Duration clamp(Duration lease) {
        return lease.isNegative() || lease.isZero() ? Duration.ofSeconds(30) : lease.compareTo(MAX_LEASE) > 0 ? MAX_LEASE : lease;
    }

    private static BenchException notFound(String name) {
        return new BenchException(BenchException.Kind.NOT_FOUND, "ATTEMPT_NOT_FOUND",
                name + " is not an external run or attempt of your tenant for this agent");
    }
}
