package io.healbench.sandbox.service;

import io.healbench.sandbox.service.model.HealOutcome;
import io.healbench.sandbox.service.model.Variant;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.Locale;

/** sandbox-service's meters at /q/metrics (docs/deploy-observability.md): sessions opened and how long heals take. */
@ApplicationScoped
public class SandboxMetrics {

    private final MeterRegistry registry;

    public SandboxMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** A client's create started a session (a repeated request id's answer is not a new one). */
    public void sessionOpened(Variant variant) {
        Counter.builder("healbench.sandbox.sessions.opened")
                .description("Sessions started for clients, by variant")
                .tag("variant", variant.name().toLowerCase(Locale.ROOT))
                .register(registry)
                .increment();
    }

    /**
     * One heal's way through the gate, the dry run, the static stage and the live process. {@code outcome} is null
     * when the heal ended in an error rather than an answer.
     */
    public void healEnded(HealOutcome outcome, Duration took) {
        Timer.builder("healbench.heal.latency")
                .description("Time from a heal request to its answer: applied, rejected before it ran, or failed")
                .tag("outcome", outcomeName(outcome))
                // Buckets, so that dashboards can take quantiles across sandboxes; heals take from milliseconds to minutes.
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(5))
                .maximumExpectedValue(Duration.ofMinutes(2))
                .register(registry)
                .record(took);
    }

    private static String outcomeName(HealOutcome outcome) {
        if (outcome != null && outcome.applied()) {
            return "applied";
        }
        return outcome != null && outcome.error() != null && outcome.error().rejected() ? "rejected" : "failed";
    }
}
