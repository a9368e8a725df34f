package io.healbench.agent.llmstub;

/** A reply's {@code usage:} from the script; each count given replaces the estimated one, the others stay. */
record UsageOverride(Integer inputTokens, Integer outputTokens, Integer cachedInputTokens) {

    static final UsageOverride NONE = new UsageOverride(null, null, null);

    StubUsage applyTo(StubUsage estimated) {
        return new StubUsage(
                inputTokens != null ? inputTokens : estimated.inputTokens(),
                outputTokens != null ? outputTokens : estimated.outputTokens(),
                cachedInputTokens != null ? cachedInputTokens : estimated.cachedInputTokens());
    }
}
