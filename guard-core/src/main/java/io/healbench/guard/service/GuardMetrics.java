package io.healbench.guard.service;

import io.healbench.guard.service.analysis.AnalysisResult;
import io.healbench.guard.service.gate.GateVerdict;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Locale;

/**
 * guard-service's counter at /q/metrics (docs/deploy-observability.md): its decisions by stage and verdict. These are
 * HealGuard's own verdicts; whether a heal was then applied is the session's guard mode's call, counted by the sandbox.
 */
@ApplicationScoped
public class GuardMetrics {

    private final MeterRegistry registry;

    public GuardMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** The HealCore gate: accepted or rejected. */
    public void gateChecked(GateVerdict verdict) {
        decided("gate", verdict.allowed() ? "accepted" : "rejected");
    }

    /** The static stage: clean, tainted or unknown. */
    public void analyzed(AnalysisResult result) {
        decided("static", result.verdict().name().toLowerCase(Locale.ROOT));
    }

    private void decided(String stage, String verdict) {
        Counter.builder("healbench.guard.decisions")
                .description("HealGuard's decisions, by stage and verdict")
                .tag("stage", stage)
                .tag("verdict", verdict)
                .register(registry)
                .increment();
    }
}
