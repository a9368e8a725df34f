package io.healbench.agent.service.llm;

/**
 * One model call's tokens as the provider reported them ({@code inputTokens} counts cached ones too) and its cost
 * from the price table; {@code priced} false when the backbone has no prices (the cost is then 0 and says so).
 */
public record CallUsage(long inputTokens, long cachedInputTokens, long outputTokens, double costUsd, boolean priced) {

    public long tokens() {
        return inputTokens + outputTokens;
    }
}
