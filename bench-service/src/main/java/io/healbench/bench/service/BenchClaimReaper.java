package io.healbench.bench.service;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

/** Every few seconds, returns the attempts whose claim's lease ran out to the queue ({@link BenchClaims#reapLapsed}). */
@ApplicationScoped
public class BenchClaimReaper {

    private static final Logger LOG = Logger.getLogger(BenchClaimReaper.class);
    private static final long PERIOD_MS = 5_000;

    private final Vertx vertx;
    private final BenchClaims claims;
    private final BenchContexts contexts;
    private long timer = -1;

    public BenchClaimReaper(Vertx vertx, BenchClaims claims, BenchContexts contexts) {
        this.vertx = vertx;
        this.claims = claims;
        this.contexts = contexts;
    }

    void start(@Observes StartupEvent started) {
        timer = vertx.setPeriodic(PERIOD_MS, id -> contexts.onFreshContext(claims::reapLapsed).subscribe().with(
                count -> {
                    if (count > 0) {
                        LOG.infof("%d claim(s) lapsed", count);
                    }
                },
                failure -> LOG.warnf("could not reap lapsed claims: %s", failure.toString())));
    }

    void stop(@Observes ShutdownEvent stopping) {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
    }
}
