package io.healbench.bench.service;

import io.healbench.bench.config.BenchConfig;
import io.healbench.bench.repository.BenchAttempt;
import io.healbench.bench.repository.BenchAttemptEvent;
import io.healbench.bench.repository.BenchAttemptEventRepository;
import io.healbench.bench.repository.BenchAttemptRepository;
import io.healbench.bench.repository.BenchRun;
import io.healbench.bench.repository.BenchRunRepository;
import io.healbench.bench.repository.BenchTrajectory;
import io.healbench.bench.repository.BenchTrajectoryRepository;
import io.healbench.common.guard.GuardDecision;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * Applies attempt events to attempts and runs. Each event applies at most once (its id is stored in
 * the same transaction), and an attempt is counted into its run's counters at most once, however
 * many completion events arrive for it. Locks: the attempt row, then the run row.
 */
@ApplicationScoped
public class BenchEventIngestor {

    private static final Logger LOG = Logger.getLogger(BenchEventIngestor.class);

    private final BenchAttemptEventRepository events;
    private final BenchAttemptRepository attempts;
    private final BenchRunRepository runs;
    private final BenchRunNotifier notifier;
    private final BenchTrajectoryRepository trajectories;
    private final int maxDeliveries;
    private final BenchMetrics metrics;

    public BenchEventIngestor(BenchAttemptEventRepository events, BenchAttemptRepository attempts, BenchRunRepository runs,
            BenchRunNotifier notifier, BenchTrajectoryRepository trajectories, BenchConfig config, BenchMetrics metrics) {
        this.events = events;
        this.attempts = attempts;
        this.runs = runs;
        this.notifier = notifier;
        this.trajectories = trajectories;
        this.maxDeliveries = config.maxDeliveries();
        this.metrics = metrics;
    }

    /** Completes once the event is durably applied (or recognised as a duplicate, or rejected as unknown). */
    public Uni<Void> ingest(BenchIncomingEvent event) {
        if (isBlank(event.eventId()) || isBlank(event.tenant()) || isBlank(event.attemptId())) {
            LOG.warnf("dropping an attempt event without event id, tenant or attempt id: %s", event.payloadJson());
            return Uni.createFrom().voidItem();
        }
        return Panache.withTransaction(() -> events.findById(event.eventId()).chain(seen -> {
            if (seen != null) {
                LOG.debugf("ignoring duplicate event %s", event.eventId());
                return Uni.createFrom().<BenchAttempt>nullItem();
            }
            return attempts.lockInTenant(event.tenant(), event.attemptId()).chain(attempt -> {
                if (attempt == null) {
                    LOG.warnf("dropping event %s: tenant %s has no attempt %s", event.eventId(), event.tenant(), event.attemptId());
                    return Uni.createFrom().<BenchAttempt>nullItem();
                }
                return events.persist(record(event, attempt)).chain(() -> apply(event, attempt)).replaceWith(attempt);
            });
        })).invoke(attempt -> {
            if (attempt != null) {
                notifier.changed(attempt.tenant, attempt.runId);
            }
        }).replaceWithVoid();
    }

    private Uni<Void> apply(BenchIncomingEvent event, BenchAttempt attempt) {
        Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        switch (event.kind()) {
            case STARTED:
                // Each session that starts the attempt says so once (its started event's id names the session).
                attempt.deliveries++;
                if (attempt.state == BenchAttempt.State.RUNNING && attempt.claimId == null && attempt.deliveries > maxDeliveries) {
                    return endRedelivered(attempt, now);
                }
                if (attempt.state != BenchAttempt.State.QUEUED) {
                    return Uni.createFrom().voidItem();
                }
                attempt.state = BenchAttempt.State.RUNNING;
                attempt.startTime = event.time();
                return updateRun(attempt, run -> {
                    if (run.state == BenchRun.State.PENDING) {
                        run.state = BenchRun.State.RUNNING;
                    }
                }, now);
            case COMPLETED:
                if (attempt.state.done()) {
                    LOG.infof("attempt %s already ended; ignoring completion event %s", attempt.id, event.eventId());
                    return Uni.createFrom().voidItem();
                }
                BenchIncomingEvent.Outcome outcome = event.outcome();
                BenchGrading.grade(attempt, outcome, event.time());
                Uni<Void> kept = outcome.trajectoryJson().isEmpty() ? Uni.createFrom().voidItem()
                        : trajectories.persist(BenchTrajectory.of(attempt, outcome.trajectoryJson())).replaceWithVoid();
                return kept.chain(() -> updateRun(attempt, run -> countEnded(run, attempt), now));
            default:
                return Uni.createFrom().voidItem();
        }
    }

    /**
     * The delivery limit: an attempt started by more sessions than allowed without ending (its workers keep dying on it)
     * ends here as an infrastructure failure, recorded under its completion event's id like any other end, so a late
     * completion from a worker is a duplicate and re-grading finds the end.
     */
    private Uni<Void> endRedelivered(BenchAttempt attempt, Instant now) {
        BenchIncomingEvent ending = BenchIncomingEvent.infrastructureFailure(attempt.tenant, attempt.runId, attempt.id,
                "the attempt was started " + attempt.deliveries + " times without ending (the limit is " + maxDeliveries
                        + "): its workers kept dying on it");
        return events.findById(ending.eventId()).chain(seen -> seen != null ? Uni.createFrom().voidItem()
                : events.persist(record(ending, attempt)).chain(() -> {
                    BenchGrading.grade(attempt, ending.outcome(), ending.time());
                    return updateRun(attempt, run -> countEnded(run, attempt), now);
                }));
    }

    /** Counts an ended attempt into its run and the meters; callers reach it once per attempt, past the ended check. */
    private void countEnded(BenchRun run, BenchAttempt attempt) {
        BenchGrading.count(run, attempt);
        metrics.attemptEnded(attempt.outcomeClass, run.agent);
    }

    private Uni<Void> updateRun(BenchAttempt attempt, Consumer<BenchRun> change, Instant now) {
        return runs.lockInTenant(attempt.tenant, attempt.runId).invoke(run -> {
            if (run == null) {
                throw new IllegalStateException("attempt " + attempt.id + " has no run " + attempt.runId);
            }
            change.accept(run);
            run.updateTime = now;
        }).replaceWithVoid();
    }

    private static BenchAttemptEvent record(BenchIncomingEvent event, BenchAttempt attempt) {
        BenchAttemptEvent record = new BenchAttemptEvent();
        record.eventId = event.eventId();
        record.tenant = attempt.tenant;
        record.runId = attempt.runId;
        record.attemptId = attempt.id;
        record.kind = event.kind().wireName();
        record.payload = event.payloadJson();
        GuardDecision decision = event.guardDecision();
        if (decision != null) {
            record.guardHealPoint = decision.healPoint();
            record.guardStage = decision.stage().wireName();
            record.guardVerdict = decision.verdict().wireName();
            record.guardReason = decision.reason();
        }
        record.eventTime = event.time();
        record.receiveTime = Instant.now().truncatedTo(ChronoUnit.MICROS);
        return record;
    }

    private static boolean isBlank(String s) {
        return s == null || s.isBlank();
    }
}
