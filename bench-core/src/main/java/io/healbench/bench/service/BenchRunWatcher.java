package io.healbench.bench.service;

import io.healbench.bench.config.BenchConfig;
import io.healbench.bench.repository.BenchRun;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Streams a run's state: the current state at once, then each change, until the run is done.
 * Every notice re-reads the run from the database, so a late subscriber misses nothing and the
 * stream always shows committed state; a periodic re-read also catches changes ingested by another
 * bench-service replica.
 */
@ApplicationScoped
public class BenchRunWatcher {

    private final BenchRunService runs;
    private final BenchRunNotifier notifier;
    private final BenchContexts contexts;
    private final BenchConfig config;

    public BenchRunWatcher(BenchRunService runs, BenchRunNotifier notifier, BenchContexts contexts, BenchConfig config) {
        this.runs = runs;
        this.notifier = notifier;
        this.contexts = contexts;
        this.config = config;
    }

    /**
     * The run's states until it is done or {@code tokenExpiry} passes, whichever comes first: then UNAUTHENTICATED
     * {@code TOKEN_EXPIRED}. The token was checked when the stream opened, and the stream must not outlive it (a revoked
     * or stolen token would otherwise go on watching).
     */
    public Multi<BenchRun> watch(BenchCaller caller, String runId, Optional<Instant> tokenExpiry) {
        Multi<BenchRun> states = watch(caller, runId);
        return tokenExpiry.map(expires -> endingAt(states, expires)).orElse(states);
    }

    private static <T> Multi<T> endingAt(Multi<T> stream, Instant expires) {
        AtomicBoolean ended = new AtomicBoolean();
        Duration left = Duration.between(Instant.now(), expires);
        return stream.onCompletion().invoke(() -> ended.set(true))
                .select().first(left.isNegative() ? Duration.ZERO : left)
                .onCompletion().call(() -> ended.get() ? Uni.createFrom().voidItem() : Uni.createFrom().failure(
                        new BenchException(BenchException.Kind.UNAUTHENTICATED, "TOKEN_EXPIRED",
                                "the token this stream was opened with expired at " + expires + "; watch again with a fresh one")));
    }

    private Multi<BenchRun> watch(BenchCaller caller, String runId) {
        Multi<Boolean> notices = Multi.createFrom().emitter(emitter -> {
            Runnable unsubscribe = notifier.subscribe(caller.tenant(), runId, () -> emitter.emit(Boolean.TRUE));
            emitter.onTermination(unsubscribe);
        });
        Multi<Boolean> ticks = Multi.createFrom().ticks().every(config.watchPollInterval()).map(t -> Boolean.TRUE);
        // Subscribed in this order: the first read comes after the notices are wired, so it misses nothing.
        // Notices that arrive during a read collapse into one more read.
        Multi<BenchRun> reads = Multi.createBy().merging().streams(notices, Multi.createFrom().item(Boolean.TRUE), ticks)
                .onOverflow().dropPreviousItems()
                .onItem().transformToUniAndConcatenate(notice -> contexts.onFreshContext(() -> runs.getRun(caller, runId)));
        return Multi.createFrom().deferred(() -> {
            AtomicReference<String> lastShown = new AtomicReference<>();
            return reads
                    .select().where(run -> !version(run).equals(lastShown.getAndSet(version(run))))
                    // A done run is followed by an end marker, and the stream stops at the marker.
                    .onItem().transformToMultiAndConcatenate(run -> run.state.done()
                            ? Multi.createFrom().items(Optional.of(run), Optional.<BenchRun>empty())
                            : Multi.createFrom().item(Optional.of(run)))
                    .select().first(Optional::isPresent)
                    .map(Optional::get);
        });
    }

    /** Every change of a run moves its update time; the rest guards against equal clock readings. */
    private static String version(BenchRun run) {
        Instant updated = run.updateTime;
        return updated + "|" + run.state + "|" + run.attemptsDone + "|" + run.proceeded + "|" + run.passed;
    }
}
