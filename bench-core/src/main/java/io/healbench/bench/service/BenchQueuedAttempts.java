package io.healbench.bench.service;

import io.healbench.bench.repository.BenchAttempt;
import io.healbench.bench.repository.BenchAttemptRepository;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;

/**
 * The gauge {@code healbench.attempts.queued}: attempts in state QUEUED across all tenants. It is counted in the
 * database every 10 s rather than at each scrape, since a gauge is read on a thread that must not wait for PostgreSQL;
 * while the database cannot be read, it keeps the last count.
 */
@ApplicationScoped
public class BenchQueuedAttempts {

    private static final Logger LOG = Logger.getLogger(BenchQueuedAttempts.class);

    private final BenchAttemptRepository attempts;
    private final BenchContexts contexts;
    private final AtomicLong queued = new AtomicLong();

    public BenchQueuedAttempts(MeterRegistry registry, BenchAttemptRepository attempts, BenchContexts contexts) {
        this.attempts = attempts;
        this.contexts = contexts;
        Gauge.builder("healbench.attempts.queued", queued, AtomicLong::get)
                .description("Attempts waiting for a worker or an external agent, across all tenants")
                .register(registry);
    }

    @Scheduled(every = "10s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    Uni<Void> refresh() {
        return contexts.onFreshContext(() -> Panache.withSession(() -> attempts.count("state", BenchAttempt.State.QUEUED)))
                .invoke(queued::set)
                .onFailure().invoke(failure -> LOG.warnf("could not count the queued attempts: %s", failure.toString()))
                .onFailure().recoverWithNull()
                .replaceWithVoid();
    }
}
