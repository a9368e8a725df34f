package io.healbench.proto.agent.v1;

/**
 * The one mapping between the domain's {@link io.healbench.common.usage.AgentUsage} and its message: the agent worker
 * writes it into {@code AttemptCompleted}, bench-service reads it back to grade and store.
 */
public final class AgentUsageProtos {

    private AgentUsageProtos() {}

    public static AgentUsage toProto(io.healbench.common.usage.AgentUsage usage) {
        return AgentUsage.newBuilder()
                .setLlmCalls(usage.llmCalls())
                .setInputTokens(usage.inputTokens())
                .setCachedInputTokens(usage.cachedInputTokens())
                .setOutputTokens(usage.outputTokens())
                .setCostUsd(usage.costUsd())
                .setPriced(usage.priced())
                .setProbes(usage.probes())
                .setExplores(usage.explores())
                .setHeals(usage.heals())
                .setReraises(usage.reraises())
                .setFormatErrors(usage.formatErrors())
                .addAllHealPointExits(usage.healPointExits())
                .setSelfReported(usage.selfReported())
                .build();
    }

    /** An attempt without model calls counts as priced, whatever the flag says: there was nothing to price. */
    public static io.healbench.common.usage.AgentUsage fromProto(AgentUsage usage) {
        return new io.healbench.common.usage.AgentUsage(usage.getLlmCalls(), usage.getInputTokens(),
                usage.getCachedInputTokens(), usage.getOutputTokens(), usage.getCostUsd(),
                usage.getPriced() || usage.getLlmCalls() == 0, usage.getProbes(), usage.getExplores(), usage.getHeals(),
                usage.getReraises(), usage.getFormatErrors(), usage.getHealPointExitsList(), usage.getSelfReported());
    }
}
