package io.healbench.bench.service;

import io.healbench.bench.config.BenchConfig;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * bench-service's periodic jobs: the outbox relay, lapsed external claims, attempt timeouts. Every replica runs them;
 * each job locks or re-checks what it changes, so replicas never do one thing twice. A pass that is still going when
 * its next one is due makes that one wait.
 */
@ApplicationScoped
public class BenchHousekeeping {

    private static final Logger LOG = Logger.getLogger(BenchHousekeeping.class);

    private final BenchContexts contexts;
    private final BenchOutbox outbox;
    private final BenchClaims claims;
    private final BenchAttemptTimeouts timeouts;
    private final BenchConfig config;

    public BenchHousekeeping(BenchContexts contexts, BenchOutbox outbox, BenchClaims claims, BenchAttemptTimeouts timeouts,
            BenchConfig config) {
        this.contexts = contexts;
        this.outbox = outbox;
        this.claims = claims;
        this.timeouts = timeouts;
        this.config = config;
    }

    void start(@Observes StartupEvent started) {
        if (config.endUnfinishedAtStart()) {
            pass("end what an earlier process left unfinished", "attempt(s) an earlier process left were ended",
                    timeouts::endUnfinished).subscribe().with(done -> { });
        }
    }

    @Scheduled(every = "${healbench.bench.outbox.relay-interval:1s}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    Uni<Void> relayOutbox() {
        return pass("relay the attempt outbox", "attempt message(s) sent", outbox::relay);
    }

    @Scheduled(every = "5s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    Uni<Void> reapLapsedClaims() {
        return pass("reap lapsed claims", "claim(s) lapsed", claims::reapLapsed);
    }

    @Scheduled(every = "15s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    Uni<Void> timeOutAttempts() {
        return pass("time out attempts", "attempt(s) timed out", timeouts::reap);
    }

    /** One pass of a job, logged when it changed something or failed; never fails itself (the next pass retries). */
    private Uni<Void> pass(String job, String done, Supplier<Uni<Integer>> work) {
        return contexts.onFreshContext(work)
                .invoke(count -> {
                    if (count > 0) {
                        LOG.infof("%d %s", count, done);
                    }
                })
                .onFailure().invoke(failure -> LOG.warnf("could not %s: %s", job, failure.toString()))
                .onFailure().recoverWithNull()
                .replaceWithVoid();
    }
}
