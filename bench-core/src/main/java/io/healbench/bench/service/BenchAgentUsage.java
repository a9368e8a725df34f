package io.healbench.bench.service;

import java.util.List;

/**
 * What an attempt's agent used, as its worker reported it: model calls, tokens (input counting cached ones too),
 * cost, whether every call was priced, its actions, and one exit status per heal point; {@code selfReported} when an
 * external agent reported its calls, tokens and cost itself (unverified).
 */
public record BenchAgentUsage(
        int llmCalls, long inputTokens, long cachedInputTokens, long outputTokens, double costUsd, boolean priced,
        int probes, int explores, int heals, int reraises, int formatErrors, List<String> healPointExits,
        boolean selfReported) {

    public static final BenchAgentUsage NONE = new BenchAgentUsage(0, 0, 0, 0, 0, true, 0, 0, 0, 0, 0, List.of(), false);

    public BenchAgentUsage {
        healPointExits = List.copyOf(healPointExits);
    }
}
