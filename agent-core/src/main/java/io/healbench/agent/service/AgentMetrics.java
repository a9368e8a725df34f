package io.healbench.agent.service;

import io.healbench.common.usage.AgentUsage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * agent-service's counters at /q/metrics (docs/deploy-observability.md): attempts run, and the tokens and money their
 * models took. Each attempt is counted when its end was handed to bench-service, where its usage is final.
 */
@ApplicationScoped
public class AgentMetrics {

    private final MeterRegistry registry;

    public AgentMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    public void attemptEnded(AttemptSpec spec, AttemptResult result) {
        Counter.builder("healbench.agent.attempts")
                .description("Attempts this worker or gateway ran to their end, by agent and failure class")
                .tag("agent", spec.agent())
                .tag("failure_class", result.failureClass().wireName())
                .register(registry)
                .increment();
        AgentUsage usage = result.usage();
        // Only what we metered ourselves: an external agent's own report of its usage is unverified.
        if (!spec.llm().isLlm() || usage.selfReported()) {
            return;
        }
        String backbone = backbone(spec.llm().backbone());
        tokens("input", backbone).increment(usage.inputTokens());
        tokens("output", backbone).increment(usage.outputTokens());
        // An unpriced backbone's calls have no cost, which is not a cost of $0 (docs/agents.md).
        if (!usage.priced()) {
            return;
        }
        Counter.builder("healbench.llm.cost.usd")
                .description("What the models' calls cost by the price table, in US dollars, by backbone")
                .tag("backbone", backbone)
                .register(registry)
                .increment(usage.costUsd());
    }

    private Counter tokens(String direction, String backbone) {
        return Counter.builder("healbench.llm.tokens")
                .description("Tokens the models took in (input, cached ones included) and gave out (output), by backbone")
                .tag("direction", direction)
                .tag("backbone", backbone)
                .register(registry);
    }

    /**
     * A configured backbone's name, or an ad-hoc {@code <provider>:<model>@<base-url>} without its base URL: where a
     * model is served says nothing about it, and every test server's port would be a series of its own.
     */
    static String backbone(String named) {
        int at = named.indexOf('@');
        return at < 0 ? named : named.substring(0, at);
    }
}
