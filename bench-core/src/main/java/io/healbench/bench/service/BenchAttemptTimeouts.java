package io.healbench.bench.service;

import io.healbench.bench.config.BenchConfig;
import io.healbench.bench.repository.BenchAttempt;
import io.healbench.bench.repository.BenchAttemptRepository;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Ends, as infrastructure failures, the attempts that would otherwise never end: running too long (the worker died and
 * nothing redelivered its message, or its completion was lost), queued too long (the message was lost), or left by a
 * standalone process that died. Each end goes through the ingestor under the completion event's id, so a late real
 * completion is then a duplicate and an attempt is never counted twice.
 */
@ApplicationScoped
public class BenchAttemptTimeouts {

    private final BenchAttemptRepository attempts;
    private final BenchEventIngestor ingestor;
    private final Duration running;
    private final Duration queued;

    public BenchAttemptTimeouts(BenchAttemptRepository attempts, BenchEventIngestor ingestor, BenchConfig config) {
        this.attempts = attempts;
        this.ingestor = ingestor;
        this.running = config.attemptTimeouts().running();
        this.queued = config.attemptTimeouts().queued();
    }

    /** Ends the attempts past their timeouts; the number ended. */
    public Uni<Integer> reap() {
        Instant now = Instant.now();
        return Panache.withSession(() -> attempts.overdue(now.minus(running), now.minus(queued)))
                .chain(overdue -> end(overdue, attempt -> attempt.state == BenchAttempt.State.RUNNING
                        ? "the attempt did not end within " + running + " of starting: its worker or its messages were lost"
                        : "no worker started the attempt within " + queued + " of queueing it: its message was lost"));
    }

    /** Standalone mode, at start: every attempt an earlier process left unfinished; the number ended. */
    public Uni<Integer> endUnfinished() {
        return Panache.withSession(attempts::unfinished)
                .chain(left -> end(left, attempt -> "the healbench process running this attempt ended before it did"));
    }

    private Uni<Integer> end(List<BenchAttempt> ending, java.util.function.Function<BenchAttempt, String> why) {
        if (ending.isEmpty()) {
            return Uni.createFrom().item(0);
        }
        List<Uni<Void>> ends = ending.stream().map(attempt -> ingestor.ingest(BenchIncomingEvent.infrastructureFailure(
                attempt.tenant, attempt.runId, attempt.id, why.apply(attempt)))).toList();
        return Uni.join().all(ends).andCollectFailures().replaceWith(ending.size());
    }
}
