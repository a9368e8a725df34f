package io.healbench.agent.service.llm;

import io.healbench.agent.service.Limits;
import jakarta.inject.Singleton;
import java.util.List;

/**
 * {@code healer}: the reference's dedicated single-shot method. One prompt carries the whole crash context; the model
 * answers with a heal or a reraise (no probing, no exploring), with one repair retry on a malformed answer
 * ({@link #LIMITS}).
 */
@Singleton
public class HealerAgent extends LlmHealingAgent {

    public static final String NAME = "healer";

    /** The healer's default limits: single-shot (one heal per heal point, one repair retry of a malformed answer). */
    public static final Limits LIMITS = singleShot(Limits.DEFAULTS);

    public HealerAgent(ConfiguredBackbones backbones, RunSpend runSpend) {
        super(new Profile(NAME, List.of(ActionCatalog.HEAL, ActionCatalog.RERAISE), new FencedTextActions(),
                "system-healer"), backbones, runSpend);
    }

    private static Limits singleShot(Limits d) {
        return new Limits(d.callsPerAttempt(), d.callsPerHealPoint(), d.tokensPerAttempt(), d.tokensPerHealPoint(),
                d.costUsdPerAttempt(), d.costUsdPerHealPoint(), d.wallPerAttempt(), d.wallPerHealPoint(),
                d.probesPerAttempt(), d.probesPerHealPoint(), 2, 1, d.runCostUsd());
    }
}
