package io.healbench.bench.service;

import io.healbench.bench.config.BenchConfig;
import io.healbench.common.backbone.Backbone;
import io.healbench.common.backbone.BackboneCatalog;
import io.healbench.common.backbone.BackboneException;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.function.Supplier;

/**
 * Checks a run's backbone before any attempt is queued: it must be configured (or a well-formed ad-hoc one), and a
 * run with a money limit needs a priced backbone, since an unpriced call must never be counted as costing $0.
 */
@ApplicationScoped
public class BenchBackbones {

    private final BenchConfig config;

    public BenchBackbones(BenchConfig config) {
        this.config = config;
    }

    void check(BenchAgentConfig agent) {
        if (!agent.backbone().isEmpty()) {
            check(agent, () -> config.backbonesFile().map(BackboneCatalog::load).orElseGet(BackboneCatalog::empty));
        }
    }

    /**
     * The backbone an LLM agent's configuration names, from the catalog; INVALID_ARGUMENT when it is unknown or
     * malformed ({@code BACKBONE_INVALID}) or when a money limit meets an unpriced backbone ({@code UNPRICED_BACKBONE}).
     */
    public static Backbone check(BenchAgentConfig agent, Supplier<BackboneCatalog> catalog) {
        Backbone backbone;
        try {
            backbone = catalog.get().resolve(agent.backbone(), agent.priceInputPerMillion(), agent.priceOutputPerMillion());
        } catch (BackboneException e) {
            throw BenchException.invalidArgument("BACKBONE_INVALID", e.getMessage());
        }
        if (agent.limitsCost() && !backbone.priced()) {
            throw BenchException.invalidArgument("UNPRICED_BACKBONE", "backbone " + backbone.name()
                    + " has no prices, so a cost limit cannot hold: give it prices (or --price-in/--price-out) or drop the limit");
        }
        return backbone;
    }
}
