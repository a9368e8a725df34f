package io.healbench.agent.service.llm;

import io.healbench.agent.service.Limits;
import io.healbench.common.backbone.Prices;
import java.time.Duration;
import java.util.Optional;

/**
 * The budgets of one attempt and of its current heal point, checked before every model call and every probe. A call
 * is allowed only if it cannot overshoot: its input is bounded ({@link InputTokenBound}) and its output is taken at
 * the backbone's maximum, so a limit stops the agent <em>before</em> the call that would pass it; against the run's
 * limit the call reserves that worst case ({@link RunSpend}) until it returns. A billed call counts whether or not its
 * reply could be parsed.
 */
final class Budget {

    /** Why the agent must stop and reraise. */
    record Stop(HealPointExit exit, String why) {
    }

    private final Limits limits;
    private final Optional<Prices> prices;
    private final int maxOutputTokens;
    private final RunSpend runSpend;
    private final String runId;
    private final long attemptStart;

    private int calls;
    private long tokens;
    private double cost;
    private int probes;
    private long healPointStart;
    private int healPointCalls;
    private long healPointTokens;
    private double healPointCost;
    private int healPointProbes;
    private int formatErrorsInARow;
    /** What the call in flight holds of the run's cost limit, settled when it returns. */
    private double reservedRunCost;

    Budget(Limits limits, Optional<Prices> prices, int maxOutputTokens, RunSpend runSpend, String runId) {
        this.limits = limits;
        this.prices = prices;
        this.maxOutputTokens = maxOutputTokens;
        this.runSpend = runSpend;
        this.runId = runId;
        this.attemptStart = System.nanoTime();
        this.healPointStart = attemptStart;
    }

    void healPointStarted() {
        healPointStart = System.nanoTime();
        healPointCalls = 0;
        healPointTokens = 0;
        healPointCost = 0;
        healPointProbes = 0;
        formatErrorsInARow = 0;
    }

    /** Whether the run's spend already reached its limit (an attempt of such a run does not start). */
    Optional<String> runExhausted() {
        double spent = runSpend.spent(runId);
        return limits.runCostUsd() > 0 && spent >= limits.runCostUsd()
                ? Optional.of(String.format("the run's cost limit of $%.4f is spent ($%.4f)", limits.runCostUsd(), spent))
                : Optional.empty();
    }

    Optional<Stop> beforeCall(long estimatedInputTokens) {
        Optional<Stop> time = timeLeft();
        if (time.isPresent()) {
            return time;
        }
        if (over(calls + 1, limits.callsPerAttempt())) {
            return limit("the attempt's " + limits.callsPerAttempt() + " model calls are used");
        }
        if (over(healPointCalls + 1, limits.callsPerHealPoint())) {
            return limit("the heal point's " + limits.callsPerHealPoint() + " model calls are used");
        }
        long nextTokens = estimatedInputTokens + maxOutputTokens;
        if (limits.tokensPerAttempt() > 0 && tokens + nextTokens > limits.tokensPerAttempt()) {
            return limit("the next call could pass the attempt's " + limits.tokensPerAttempt() + " tokens (" + tokens
                    + " used, up to " + nextTokens + " more)");
        }
        if (limits.tokensPerHealPoint() > 0 && healPointTokens + nextTokens > limits.tokensPerHealPoint()) {
            return limit("the next call could pass the heal point's " + limits.tokensPerHealPoint() + " tokens");
        }
        double nextCost = prices.map(p -> p.cost(estimatedInputTokens, 0, maxOutputTokens)).orElse(0.0);
        if (limits.costUsdPerAttempt() > 0 && cost + nextCost > limits.costUsdPerAttempt()) {
            return limit(String.format("the next call could pass the attempt's cost limit of $%.4f ($%.4f spent)",
                    limits.costUsdPerAttempt(), cost));
        }
        if (limits.costUsdPerHealPoint() > 0 && healPointCost + nextCost > limits.costUsdPerHealPoint()) {
            return limit(String.format("the next call could pass the heal point's cost limit of $%.4f",
                    limits.costUsdPerHealPoint()));
        }
        // Last, so that a call refused for another reason holds nothing of the run's limit.
        if (limits.runCostUsd() > 0) {
            if (!runSpend.reserve(runId, nextCost, limits.runCostUsd())) {
                return limit(String.format("the next call could pass the run's cost limit of $%.4f ($%.4f spent)",
                        limits.runCostUsd(), runSpend.spent(runId)));
            }
            reservedRunCost = nextCost;
        }
        return Optional.empty();
    }

    /** A probe is refused (the agent sees why) once a probe budget is used. */
    Optional<String> beforeProbe() {
        if (over(probes + 1, limits.probesPerAttempt())) {
            return Optional.of("the attempt's " + limits.probesPerAttempt() + " probes are used");
        }
        if (over(healPointProbes + 1, limits.probesPerHealPoint())) {
            return Optional.of("the heal point's " + limits.probesPerHealPoint() + " probes are used");
        }
        return Optional.empty();
    }

    void charged(CallUsage usage) {
        calls++;
        healPointCalls++;
        tokens += usage.tokens();
        healPointTokens += usage.tokens();
        cost += usage.costUsd();
        healPointCost += usage.costUsd();
        runSpend.settle(runId, reservedRunCost, usage.costUsd());
        reservedRunCost = 0;
    }

    /** The call allowed last failed with no usage reported: it releases what it held of the run's limit. */
    void callFailed() {
        runSpend.settle(runId, reservedRunCost, 0);
        reservedRunCost = 0;
    }

    void probed() {
        probes++;
        healPointProbes++;
    }

    /** Counts a malformed reply; true when that makes too many in a row. */
    boolean formatError() {
        formatErrorsInARow++;
        return limits.consecutiveFormatErrors() > 0 && formatErrorsInARow >= limits.consecutiveFormatErrors();
    }

    void wellFormed() {
        formatErrorsInARow = 0;
    }

    private Optional<Stop> timeLeft() {
        long now = System.nanoTime();
        if (expired(now - attemptStart, limits.wallPerAttempt())) {
            return Optional.of(new Stop(HealPointExit.TIME_EXCEEDED,
                    "the attempt's " + limits.wallPerAttempt().toSeconds() + " s are used"));
        }
        if (expired(now - healPointStart, limits.wallPerHealPoint())) {
            return Optional.of(new Stop(HealPointExit.TIME_EXCEEDED,
                    "the heal point's " + limits.wallPerHealPoint().toSeconds() + " s are used"));
        }
        return Optional.empty();
    }

    private static boolean expired(long elapsedNanos, Duration limit) {
        return !limit.isZero() && elapsedNanos >= limit.toNanos();
    }

    private static boolean over(long next, long limit) {
        return limit > 0 && next > limit;
    }

    private static Optional<Stop> limit(String why) {
        return Optional.of(new Stop(HealPointExit.LIMITS_EXCEEDED, why));
    }
}
