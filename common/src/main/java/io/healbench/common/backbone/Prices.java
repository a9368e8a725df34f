package io.healbench.common.backbone;

/**
 * USD per million tokens. A backbone without prices is <em>unpriced</em>: its calls are counted but never turned
 * into a cost of $0, and a run with a cost limit on it is refused.
 */
public record Prices(double inputPerMillion, double cachedInputPerMillion, double outputPerMillion) {

    public Prices {
        if (inputPerMillion < 0 || cachedInputPerMillion < 0 || outputPerMillion < 0) {
            throw new BackboneException("prices must not be negative");
        }
    }

    /**
     * The cost of one call. {@code inputTokens} counts every prompt token, cached ones included (the way OpenAI
     * reports them); the cached ones are charged at the cached price.
     */
    public double cost(long inputTokens, long cachedInputTokens, long outputTokens) {
        long uncached = Math.max(0, inputTokens - cachedInputTokens);
        return (uncached * inputPerMillion + cachedInputTokens * cachedInputPerMillion
                + outputTokens * outputPerMillion) / 1_000_000.0;
    }
}
