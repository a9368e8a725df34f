package io.healbench.bench.grpc;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.healbench.bench.repository.BenchAttempt;
import io.healbench.bench.repository.BenchRun;
import io.healbench.bench.service.BenchRunManifest;
import io.healbench.bench.service.BenchAgentConfig;
import io.healbench.bench.service.BenchException;
import io.healbench.proto.agent.v1.AgentConfig;
import io.healbench.proto.agent.v1.Limits;
import io.healbench.proto.events.v1.AttemptRequest;
import io.healbench.proto.guard.v1.GuardProtos;

/**
 * The run's {@code AgentConfig} between the wire and its stored JSON form: written once when the run is created,
 * read back unchanged for every attempt and every view of the run.
 */
public final class BenchAgentConfigs {

    private static final JsonFormat.Printer PRINTER = JsonFormat.printer().omittingInsignificantWhitespace()
            .preservingProtoFieldNames();
    private static final JsonFormat.Parser PARSER = JsonFormat.parser();

    private BenchAgentConfigs() {
    }

    public static BenchAgentConfig toDomain(AgentConfig config) {
        if (config.getPriceInputPerMtok() < 0 || config.getPriceOutputPerMtok() < 0) {
            throw BenchException.invalidArgument("PRICE_INVALID", "prices must not be negative");
        }
        Limits limits = config.getLimits();
        boolean limitsCost = limits.getCostUsdPerAttempt() > 0 || limits.getCostUsdPerHealPoint() > 0
                || limits.getRunCostUsd() > 0;
        try {
            return new BenchAgentConfig(PRINTER.print(config), config.getBackbone(), config.getPriceInputPerMtok(),
                    config.getPriceOutputPerMtok(), limitsCost);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("cannot print an AgentConfig", e);
        }
    }

    /** The stored JSON back on the wire; a run stored before agent configs existed has none. */
    public static AgentConfig fromJson(String json) {
        AgentConfig.Builder builder = AgentConfig.newBuilder();
        if (json == null || json.isBlank()) {
            return builder.build();
        }
        try {
            PARSER.merge(json, builder);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("a stored agent config is not an AgentConfig: " + e.getMessage(), e);
        }
        return builder.build();
    }

    /** An attempt as agents receive it: the work queue's message, and a claim's answer. */
    public static AttemptRequest attemptRequest(BenchRun run, BenchAttempt attempt) {
        return AttemptRequest.newBuilder()
                .setTenant(run.tenant)
                .setRunId(run.id)
                .setAttemptId(attempt.id)
                .setInstanceId(attempt.instanceId)
                .setRepeat(attempt.repeatIndex)
                .setAgent(run.agent)
                .setGuardMode(GuardProtos.mode(run.guardMode))
                .setAgentConfig(fromJson(run.agentConfig))
                .setInstanceDigest(BenchRunManifest.digestOf(run.manifest, attempt.instanceId))
                .build();
    }
}
