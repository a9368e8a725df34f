package io.healbench.agent.service;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An LLM agent's budgets (docs/agents.md, "Budgets"), each checked before every model call; 0 means no limit.
 * Per attempt and per heal point: model calls, tokens (input plus output, as reported), cost, wall time and probes;
 * also the malformed replies in a row that end a heal point, the heals one heal point may submit, and the whole
 * run's spend.
 */
public record Limits(
        int callsPerAttempt, int callsPerHealPoint,
        long tokensPerAttempt, long tokensPerHealPoint,
        double costUsdPerAttempt, double costUsdPerHealPoint,
        Duration wallPerAttempt, Duration wallPerHealPoint,
        int probesPerAttempt, int probesPerHealPoint,
        int consecutiveFormatErrors,
        int healsPerHealPoint,
        double runCostUsd) {

    /**
     * The reference's budgets (100 model calls per attempt), three malformed replies in a row, five heals per heal
     * point, and a wall time inside the attempt's 600 s so the agent still reraises itself.
     */
    public static final Limits DEFAULTS = new Limits(100, 0, 0, 0, 0, 0, Duration.ofSeconds(540), Duration.ZERO,
            0, 0, 3, 5, 0);

    public Limits {
        if (callsPerAttempt < 0 || callsPerHealPoint < 0 || tokensPerAttempt < 0 || tokensPerHealPoint < 0
                || costUsdPerAttempt < 0 || costUsdPerHealPoint < 0 || wallPerAttempt.isNegative()
                || wallPerHealPoint.isNegative() || probesPerAttempt < 0 || probesPerHealPoint < 0
                || consecutiveFormatErrors < 0 || healsPerHealPoint < 0 || runCostUsd < 0) {
            throw new IllegalArgumentException("limits must not be negative");
        }
    }

    /** Some money limit is set: the backbone must be priced. */
    public boolean limitsCost() {
        return costUsdPerAttempt > 0 || costUsdPerHealPoint > 0 || runCostUsd > 0;
    }

    /** The limits as the trajectory and the run manifest record them. */
    public Map<String, Object> describe() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("calls_per_attempt", callsPerAttempt);
        out.put("calls_per_heal_point", callsPerHealPoint);
        out.put("tokens_per_attempt", tokensPerAttempt);
        out.put("tokens_per_heal_point", tokensPerHealPoint);
        out.put("cost_usd_per_attempt", costUsdPerAttempt);
        out.put("cost_usd_per_heal_point", costUsdPerHealPoint);
        out.put("wall_seconds_per_attempt", wallPerAttempt.toSeconds());
        out.put("wall_seconds_per_heal_point", wallPerHealPoint.toSeconds());
        out.put("probes_per_attempt", probesPerAttempt);
        out.put("probes_per_heal_point", probesPerHealPoint);
        out.put("consecutive_format_errors", consecutiveFormatErrors);
        out.put("heals_per_heal_point", healsPerHealPoint);
        out.put("run_cost_usd", runCostUsd);
        return out;
    }
}
