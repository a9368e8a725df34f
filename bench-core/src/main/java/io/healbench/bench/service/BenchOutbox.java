package io.healbench.bench.service;

import io.healbench.bench.config.BenchConfig;
import io.healbench.bench.repository.BenchAttempt;
import io.healbench.bench.repository.BenchAttemptRepository;
import io.healbench.bench.repository.BenchOutboxEntry;
import io.healbench.bench.repository.BenchOutboxRepository;
import io.healbench.bench.repository.BenchRun;
import io.healbench.bench.repository.BenchRunRepository;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;

/**
 * The relay of the attempt outbox: sends what the transactions that created attempts left in it, after they committed,
 * and records the queue's confirms. A message the queue refused is sent again on the next pass, up to
 * {@value #MAX_TRIES} times, after which its attempt ends as an infrastructure failure; one the broker never confirmed
 * is sent again after {@code healbench.bench.outbox.resend-unconfirmed-after} (a relay that died between send and
 * confirm). Workers drop an attempt they already ran, and events are counted once, so a resend costs nothing.
 */
@ApplicationScoped
public class BenchOutbox {

    private static final Logger LOG = Logger.getLogger(BenchOutbox.class);
    static final int MAX_TRIES = 5;
    private static final int BATCH = 200;

    private final BenchOutboxRepository outbox;
    private final BenchAttemptRepository attempts;
    private final BenchRunRepository runs;
    private final AttemptQueue queue;
    private final BenchEventIngestor ingestor;
    private final BenchContexts contexts;
    private final Duration resendUnconfirmedAfter;

    public BenchOutbox(BenchOutboxRepository outbox, BenchAttemptRepository attempts, BenchRunRepository runs, AttemptQueue queue,
            BenchEventIngestor ingestor, BenchContexts contexts, BenchConfig config) {
        this.outbox = outbox;
        this.attempts = attempts;
        this.runs = runs;
        this.queue = queue;
        this.ingestor = ingestor;
        this.contexts = contexts;
        this.resendUnconfirmedAfter = config.outbox().resendUnconfirmedAfter();
    }

    /** The outbox entries of newly created attempts: persisted in the creating transaction. */
    static List<BenchOutboxEntry> entries(List<BenchAttempt> created) {
        return created.stream().map(BenchOutboxEntry::of).toList();
    }

    /** Starts a pass now (after a run was created) without waiting for it. */
    void relaySoon() {
        contexts.onFreshContext(this::relay).subscribe().with(sent -> { },
                failure -> LOG.warnf("the outbox relay failed: %s", failure.toString()));
    }

    /** One pass: marks what waits as sent, commits, then hands each message to the queue; the number handed. */
    public Uni<Integer> relay() {
        Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        Uni<Integer> resent = resendUnconfirmedAfter.isZero() ? Uni.createFrom().item(0)
                : Panache.withTransaction(() -> outbox.resendUnconfirmed(now.minus(resendUnconfirmedAfter)));
        return resent.chain(count -> {
            if (count > 0) {
                LOG.warnf("%d attempt message(s) were never confirmed by the broker: sending them again", count);
            }
            return Panache.withTransaction(() -> outbox.lockUnsent(BATCH).chain(this::markSent));
        }).map(batch -> {
            batch.forEach(this::send);
            return batch.size();
        });
    }

    /** An entry leaving now, with what its message is made of. */
    private record Leaving(BenchOutboxEntry entry, BenchAttempt attempt, BenchRun run) {}

    private Uni<List<Leaving>> markSent(List<BenchOutboxEntry> unsent) {
        if (unsent.isEmpty()) {
            return Uni.createFrom().item(List.of());
        }
        Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        List<String> attemptIds = unsent.stream().map(e -> e.attemptId).toList();
        List<String> runIds = unsent.stream().map(e -> e.runId).distinct().toList();
        return attempts.list("id in ?1", attemptIds).chain(found -> runs.list("id in ?1", runIds).map(runList -> {
            Map<String, BenchAttempt> byAttempt = found.stream().collect(Collectors.toMap(a -> a.id, Function.identity()));
            Map<String, BenchRun> byRun = runList.stream().collect(Collectors.toMap(r -> r.id, Function.identity()));
            for (BenchOutboxEntry entry : unsent) {
                entry.publishTime = now;
                entry.tries++;
            }
            return unsent.stream()
                    .filter(e -> byAttempt.containsKey(e.attemptId) && byRun.containsKey(e.runId))
                    .map(e -> new Leaving(e, byAttempt.get(e.attemptId), byRun.get(e.runId)))
                    .toList();
        }));
    }

    private void send(Leaving leaving) {
        BenchAttempt attempt = leaving.attempt();
        if (attempt.state != BenchAttempt.State.QUEUED) {
            return;  // ended meanwhile (cancelled, timed out): nothing to run
        }
        if (leaving.entry().tries > MAX_TRIES) {
            giveUp(attempt, "the attempt's message was refused by the queue " + MAX_TRIES + " times");
            return;
        }
        queue.send(leaving.run(), attempt).subscribe().with(
                confirmed -> record(attempt, () -> outbox.confirm(attempt.id, Instant.now().truncatedTo(ChronoUnit.MICROS))),
                refused -> {
                    LOG.warnf("the queue refused attempt %s (try %d): %s", attempt.id, leaving.entry().tries, refused.toString());
                    record(attempt, () -> outbox.unsend(attempt.id));
                });
    }

    private void record(BenchAttempt attempt, Supplier<Uni<Integer>> change) {
        contexts.onFreshContext(() -> Panache.withTransaction(change)).subscribe().with(done -> { },
                failure -> LOG.warnf("could not record the send of attempt %s: %s", attempt.id, failure.toString()));
    }

    private void giveUp(BenchAttempt attempt, String detail) {
        contexts.onFreshContext(() -> ingestor.ingest(
                        BenchIncomingEvent.infrastructureFailure(attempt.tenant, attempt.runId, attempt.id, detail)))
                .subscribe().with(done -> { },
                        failure -> LOG.errorf("could not end attempt %s: %s", attempt.id, failure.toString()));
    }
}
