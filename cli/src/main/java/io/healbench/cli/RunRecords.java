package io.healbench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.healbench.analysis.AttemptRecord;
import io.healbench.analysis.OutcomeClass;
import io.healbench.analysis.RunRecord;
import io.healbench.proto.bench.v1.Attempt;
import io.healbench.proto.bench.v1.Run;
import io.healbench.proto.guard.v1.GuardProtos;
import io.healbench.proto.outcome.v1.ExitCause;
import io.healbench.proto.outcome.v1.FailureClass;
import io.healbench.proto.outcome.v1.OutcomeProtos;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A run and its attempts as the analysis sees them: code base and tier come from the run's manifest. */
final class RunRecords {

    private static final ObjectMapper JSON = new ObjectMapper();

    private RunRecords() {}

    static RunRecord of(Run run, List<Attempt> attempts) {
        Map<String, JsonNode> instances = new HashMap<>();
        try {
            JsonNode manifest = run.getManifestJson().isEmpty() ? JSON.createObjectNode() : JSON.readTree(run.getManifestJson());
            manifest.path("instances").forEach(node -> instances.put(node.path("id").asText(), node));
        } catch (IOException e) {
            throw new UncheckedIOException("run " + run.getName() + " has a manifest that is not JSON", e);
        }
        List<AttemptRecord> records = attempts.stream().map(a -> {
            JsonNode instance = instances.getOrDefault(a.getInstanceId(), JSON.createObjectNode());
            return new AttemptRecord(id(a.getName()), a.getInstanceId(), a.getRepeat(), instance.path("codebase").asText("unknown"),
                    instance.path("tier").asText("unknown"), a.getExceptionType(), outcome(a), a.getSummary().getProceeded(),
                    a.getSummary().getPassed(),

                    a.getTraceSimilarity(), a.getUsage().getCostUsd(), a.getUsage().getInputTokens(), a.getUsage().getOutputTokens(),
                    a.getGuardDecisionsList().stream().map(GuardProtos::decision).map(d -> new AttemptRecord.GuardDecisionRecord(
                            d.healPoint(), d.stage().wireName(), d.verdict().wireName(), d.reason())).toList(),
                    a.getDetail(), "instances/" + attemptDirectory(a));
        }).toList();
        String backbone = run.getAgentConfig().getBackbone();
        String label = backbone.isEmpty() ? run.getAgent() : run.getAgent() + " · " + backbone;
        return new RunRecord(id(run.getName()), label, run.getAgent(), guardMode(run), run.getRepeats(), run.getState().name(),
                Instant.ofEpochSecond(run.getCreateTime().getSeconds(), run.getCreateTime().getNanos()).toString(), records);
    }

    /**
     * The outcome class bench-service graded; an attempt that never ended (the run was cancelled) is the harness's,
     * never the agent's.
     */
    static OutcomeClass outcome(Attempt attempt) {
        return switch (attempt.getOutcomeClass()) {
            case HEALED -> OutcomeClass.HEALED;
            case NOT_HEALED -> OutcomeClass.NOT_HEALED;
            case RERAISED -> OutcomeClass.RERAISED;
            case AGENT_ERROR -> OutcomeClass.AGENT_ERROR;
            case BUDGET -> OutcomeClass.BUDGET;
            case GRADER -> OutcomeClass.GRADER;
            case INFRASTRUCTURE, OUTCOME_CLASS_UNSPECIFIED, UNRECOGNIZED -> OutcomeClass.INFRASTRUCTURE;
        };
    }

    /** The run's guard mode as the reports and tables spell it. */
    static String guardMode(Run run) {
        return GuardProtos.mode(run.getGuardMode()).wireName();
    }

    /** The exit cause's wire name; "" while the attempt has not ended. */
    static String exitCause(Attempt attempt) {
        ExitCause cause = attempt.getSummary().getExitCause();
        return cause == ExitCause.EXIT_CAUSE_UNSPECIFIED ? "" : OutcomeProtos.exitCause(cause).wireName();
    }

    /** The failure class's wire name; "" while the attempt has not ended. */
    static String failureClass(Attempt attempt) {
        return attempt.getFailureClass() == FailureClass.FAILURE_CLASS_UNSPECIFIED ? ""
                : OutcomeProtos.failureClass(attempt.getFailureClass()).wireName();
    }

    /** The attempt's directory under its run's {@code instances/}: the instance id, and its repeat after the first. */
    static String attemptDirectory(Attempt attempt) {
        return attempt.getInstanceId() + (attempt.getRepeat() > 0 ? "-r" + attempt.getRepeat() : "");
    }

    /** The last segment of a resource name: runs/{id} or runs/{run}/attempts/{id}. */
    static String id(String name) {
        return name.substring(name.lastIndexOf('/') + 1);
    }
}
