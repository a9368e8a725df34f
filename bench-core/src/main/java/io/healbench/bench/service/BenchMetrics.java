package io.healbench.bench.service;

import io.healbench.bench.repository.BenchAttempt;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Locale;

/** bench-service's counters at /q/metrics (docs/deploy-observability.md): runs made and attempts ended. */
@ApplicationScoped
public class BenchMetrics {

    private final MeterRegistry registry;

    public BenchMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** An attempt ended in {@code outcomeClass}; the caller counts each attempt once, not each completion event of it. */
    public void attemptEnded(BenchAttempt.OutcomeClass outcomeClass, String agent) {
        Counter.builder("healbench.attempts.ended")
                .description("Attempts that ended, by outcome class and agent")
                .tag("outcome_class", outcomeClass.name().toLowerCase(Locale.ROOT))
                .tag("agent", agent)
                .register(registry)
                .increment();
    }

    /** A run was made (not one a repeated request id answered with). */
    public void runCreated(String agent) {
        Counter.builder("healbench.runs.created")
                .description("Runs created, by agent")
                .tag("agent", agent)
                .register(registry)
                .increment();
    }
}
