package io.healbench.agent.messaging;

import io.healbench.agent.cassette.CassetteMode;
import io.healbench.agent.service.AttemptSpec;
import io.healbench.agent.service.Limits;
import io.healbench.agent.service.LlmSettings;
import io.healbench.agent.service.llm.HealerAgent;
import io.healbench.proto.agent.v1.AgentConfig;
import io.healbench.proto.events.v1.AttemptRequest;
import io.healbench.proto.guard.v1.GuardProtos;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/** Maps the wire's {@code AgentConfig} and {@code AttemptRequest} to the domain; unset limits take defaults. */
public final class AgentConfigMapper {

    private AgentConfigMapper() {
    }

    /** An attempt as the wire carries it (the work queue's message, or a claim's). */
    public static AttemptSpec spec(AttemptRequest request) {
        return new AttemptSpec(request.getTenant(), request.getRunId(), request.getAttemptId(),
                request.getInstanceId(), request.getRepeat(), request.getAgent(), GuardProtos.mode(request.getGuardMode()),
                settings(request.getAgent(), request.getAgentConfig()), request.getInstanceDigest());
    }

    static LlmSettings settings(String agent, AgentConfig config) {
        if (config.getBackbone().isEmpty()) {
            // No model of ours; the limits still bound an external agent's actions, probes, heals and wall time.
            return new LlmSettings("", 0, 0, limits(config.getLimits(), defaultLimits(agent)), Optional.empty(),
                    CassetteMode.OFF);
        }
        return new LlmSettings(config.getBackbone(), config.getPriceInputPerMtok(), config.getPriceOutputPerMtok(),
                limits(config.getLimits(), defaultLimits(agent)),
                config.getCassetteDir().isEmpty() ? Optional.empty() : Optional.of(Path.of(config.getCassetteDir())),
                cassetteMode(config.getCassetteMode()));
    }

    /** The limits an agent gets where the wire sets none: the healer's own, the defaults for every other agent. */
    private static Limits defaultLimits(String agent) {
        return HealerAgent.NAME.equals(agent) ? HealerAgent.LIMITS : Limits.DEFAULTS;
    }

    static Limits limits(io.healbench.proto.agent.v1.Limits wire, Limits d) {
        return new Limits(
                wire.hasCallsPerAttempt() ? wire.getCallsPerAttempt() : d.callsPerAttempt(),
                wire.hasCallsPerHealPoint() ? wire.getCallsPerHealPoint() : d.callsPerHealPoint(),
                wire.hasTokensPerAttempt() ? wire.getTokensPerAttempt() : d.tokensPerAttempt(),
                wire.hasTokensPerHealPoint() ? wire.getTokensPerHealPoint() : d.tokensPerHealPoint(),
                wire.hasCostUsdPerAttempt() ? wire.getCostUsdPerAttempt() : d.costUsdPerAttempt(),
                wire.hasCostUsdPerHealPoint() ? wire.getCostUsdPerHealPoint() : d.costUsdPerHealPoint(),
                wire.hasWallSecondsPerAttempt() ? Duration.ofSeconds(wire.getWallSecondsPerAttempt()) : d.wallPerAttempt(),
                wire.hasWallSecondsPerHealPoint() ? Duration.ofSeconds(wire.getWallSecondsPerHealPoint()) : d.wallPerHealPoint(),
                wire.hasProbesPerAttempt() ? wire.getProbesPerAttempt() : d.probesPerAttempt(),
                wire.hasProbesPerHealPoint() ? wire.getProbesPerHealPoint() : d.probesPerHealPoint(),
                wire.hasConsecutiveFormatErrors() ? wire.getConsecutiveFormatErrors() : d.consecutiveFormatErrors(),
                wire.hasHealsPerHealPoint() ? wire.getHealsPerHealPoint() : d.healsPerHealPoint(),
                wire.hasRunCostUsd() ? wire.getRunCostUsd() : d.runCostUsd());
    }

    private static CassetteMode cassetteMode(io.healbench.proto.agent.v1.CassetteMode mode) {
        return switch (mode) {
            case CASSETTE_RECORD -> CassetteMode.RECORD;
            case CASSETTE_REPLAY -> CassetteMode.REPLAY;
            case CASSETTE_RECORD_MISSING -> CassetteMode.RECORD_MISSING;
            case CASSETTE_OFF, CASSETTE_MODE_UNSPECIFIED, UNRECOGNIZED -> CassetteMode.OFF;
        };
    }
}
