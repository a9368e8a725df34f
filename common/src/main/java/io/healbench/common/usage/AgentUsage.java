package io.healbench.common.usage;

import java.util.List;

/**
 * What an attempt's agent used and did: model calls and tokens as the provider reported them ({@code inputTokens}
 * counting cached ones too), their cost from the price table ({@code priced} false when a call had no price), its
 * actions, and one exit status per heal point. {@code selfReported}: the calls, tokens and cost are what an external
 * agent said of itself, unverified. The agent worker reports it and bench-service grades with it.
 */
public record AgentUsage(
        int llmCalls, long inputTokens, long cachedInputTokens, long outputTokens, double costUsd, boolean priced,
        int probes, int explores, int heals, int reraises, int formatErrors, List<String> healPointExits,
        boolean selfReported) {

    public static final AgentUsage NONE = new AgentUsage(0, 0, 0, 0, 0, true, 0, 0, 0, 0, 0, List.of(), false);

    public AgentUsage {
        healPointExits = List.copyOf(healPointExits);
    }
}
