package io.healbench.cli;

import io.healbench.proto.outcome.v1.OutcomeSummary;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.util.JsonFormat;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.healbench.analysis.HtmlReport;
import io.healbench.analysis.RunRecord;
import io.healbench.analysis.RunStatistics;
import io.healbench.proto.agent.v1.AgentUsage;
import io.healbench.proto.bench.v1.Attempt;
import io.healbench.proto.bench.v1.BenchServiceGrpc;
import io.healbench.proto.bench.v1.GetAttemptTrajectoryRequest;
import io.healbench.proto.guard.v1.GuardDecision;
import io.healbench.proto.bench.v1.ListAttemptEventsRequest;
import io.healbench.proto.bench.v1.ListAttemptEventsResponse;
import io.healbench.proto.bench.v1.ListAttemptsRequest;
import io.healbench.proto.bench.v1.ListAttemptsResponse;
import io.healbench.proto.bench.v1.Run;
import io.healbench.proto.bench.v1.StoredEvent;
import io.healbench.proto.guard.v1.GuardProtos;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A run's directory, in the SWE-bench harness's layout: {@code runs/<run>/run.json} (the immutable manifest),
 * {@code report.json} and {@code report.html}, and one directory per attempt under {@code instances/} with its
 * {@code report.json}, {@code events.jsonl} (its stored events) and {@code trajectory.json}. Written after a run, and again by
 * {@code runs regrade} and {@code runs show} from what bench-service keeps.
 */
public final class RunReportFiles {

    public static final String REPORT_SCHEMA = "healbench.report/v2";

    /** Statistics in the report, snake_case like the rest of it. */
    private static final ObjectMapper STATISTICS_JSON = new ObjectMapper()
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);

    private final BenchServiceGrpc.BenchServiceBlockingStub bench;
    private final Path runsDir;
    private final ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** What was written: the report's path and the statistics in it. */
    record Written(Path report, RunStatistics statistics) {}

    RunReportFiles(BenchServiceGrpc.BenchServiceBlockingStub bench, Path runsDir) {
        this.bench = bench;
        this.runsDir = runsDir;
    }

    List<Attempt> listAttempts(String runName) {
        List<Attempt> attempts = new ArrayList<>();
        String token = "";
        do {
            ListAttemptsResponse page = bench.listAttempts(ListAttemptsRequest.newBuilder()
                    .setParent(runName).setPageSize(500).setPageToken(token).build());
            attempts.addAll(page.getAttemptsList());
            token = page.getNextPageToken();
        } while (!token.isEmpty());
        return attempts;
    }

    /**
     * Writes the run's files. {@code invocation} says how the run was started (mode, exit status, ...); null keeps what
     * an earlier report said (re-grading does not know it).
     */
    Written write(Run run, List<Attempt> attempts, ObjectNode invocation) throws IOException {
        Path dir = runsDir.resolve(RunRecords.id(run.getName()));
        Files.createDirectories(dir);
        Path file = dir.resolve("report.json");
        writeManifest(run, dir);
        RunSummary runSummary = RunSummary.of(attempts);
        RunRecord record = RunRecords.of(run, attempts);
        RunStatistics statistics = RunStatistics.of(record, run.getSeed());

        ObjectNode report = json.createObjectNode();
        report.put("schema", REPORT_SCHEMA);
        report.put("run_id", record.runId());
        report.put("state", run.getState().name());
        report.put("written_at", Instant.now().toString());
        report.put("agent", run.getAgent());
        report.put("guard_mode", RunRecords.guardMode(run));
        report.set("agent_config", json.readTree(JsonFormat.printer().preservingProtoFieldNames().print(run.getAgentConfig())));
        report.put("repeats", run.getRepeats());
        report.put("seed", run.getSeed());
        report.set("invocation", invocation != null ? invocation : earlierInvocation(file));
        ObjectNode summary = report.putObject("summary");
        summary.put("instances", run.getInstanceIdsCount());
        summary.put("attempts", run.getAttemptsTotal());
        // The rates' denominator: attempts that failed outside the agent (infrastructure, grader) say nothing about it.
        summary.put("agent_attempts", runSummary.agentAttempts());
        summary.put("proceeded", run.getProceeded());
        summary.put("passed", run.getPassed());
        summary.put("attempts_failed", run.getAttemptsFailed());
        summary.put("trace_similarity", run.getTraceSimilarity());
        summary.set("by_class", json.valueToTree(runSummary.byClass()));
        summary.set("first_reasons", json.valueToTree(runSummary.firstReasons()));
        summary.set("usage", usage(run.getUsage()));
        // What the agents did, like the reference's action analysis: actions of each kind over all attempts.
        ObjectNode actions = summary.putObject("actions");
        actions.put("probe", run.getUsage().getProbes());
        actions.put("explore", run.getUsage().getExplores());
        actions.put("heal", run.getUsage().getHeals());
        actions.put("reraise", run.getUsage().getReraises());
        report.set("statistics", statisticsJson(statistics));
        ArrayNode rows = report.putArray("attempts");
        for (Attempt a : attempts) {
            ObjectNode row = attemptRow(a);
            rows.add(row);
            Path attemptDir = dir.resolve("instances").resolve(RunRecords.attemptDirectory(a));
            Files.createDirectories(attemptDir);
            json.writeValue(attemptDir.resolve("report.json").toFile(), row);
            writeEvents(a, attemptDir);
            writeTrajectory(a, attemptDir);
        }
        json.writeValue(file.toFile(), report);
        Files.writeString(dir.resolve("report.html"), HtmlReport.ofRun(record, statistics));
        return new Written(file.toAbsolutePath(), statistics);
    }

    /** The statistics as report.json and the --json line carry them. */
    static JsonNode statisticsJson(RunStatistics statistics) {
        return STATISTICS_JSON.valueToTree(statistics);
    }

    /**
     * run.json is the manifest bench-service stored when it created the run, written once: a later write that would
     * differ means the record changed under the run, and is refused rather than papered over.
     */
    private void writeManifest(Run run, Path dir) throws IOException {
        Path file = dir.resolve("run.json");
        String manifest = json.writeValueAsString(json.readTree(run.getManifestJson().isEmpty() ? "{}" : run.getManifestJson()));
        if (Files.exists(file)) {
            if (!Files.readString(file).equals(manifest)) {
                throw new IOException(file + " differs from the manifest bench-service keeps for " + run.getName()
                        + "; the run's record was changed after it was created");
            }
            return;
        }
        Files.writeString(file, manifest);
    }

    private JsonNode earlierInvocation(Path report) throws IOException {
        if (Files.exists(report)) {
            JsonNode earlier = json.readTree(report.toFile()).path("invocation");
            if (earlier.isObject()) {
                return earlier;
            }
        }
        return json.createObjectNode();
    }

    private ObjectNode attemptRow(Attempt a) {
        ObjectNode row = json.createObjectNode();
        row.put("attempt_id", RunRecords.id(a.getName()));
        row.put("instance_id", a.getInstanceId());
        row.put("repeat", a.getRepeat());
        row.put("state", a.getState().name());
        AttemptStatus status = AttemptStatus.of(a);
        row.put("outcome_class", status.label());
        row.put("outcome_reason", status.reason());
        row.put("exception_type", a.getExceptionType());
        OutcomeSummary summary = a.getSummary();
        row.put("proceeded", summary.getProceeded());
        row.put("passed", summary.getPassed());
        row.put("heal_points", summary.getHealPoints());
        row.put("trace_similarity", a.getTraceSimilarity());
        row.put("heals_applied", summary.getHealsApplied());
        row.put("heals_rejected", summary.getHealsRejected());
        row.put("failure_class", RunRecords.failureClass(a));
        row.put("exit_cause", RunRecords.exitCause(a));
        row.put("detail", a.getDetail());
        row.put("wall_time_ms", summary.getWallTimeMs());
        row.set("usage", usage(a.getUsage()));
        ArrayNode decisions = row.putArray("guard_decisions");
        for (GuardDecision d : a.getGuardDecisionsList()) {
            decisions.add(guardDecision(d));
        }
        return row;
    }

    private ObjectNode guardDecision(GuardDecision wire) {
        io.healbench.common.guard.GuardDecision d = GuardProtos.decision(wire);
        return json.createObjectNode().put("heal_point", d.healPoint()).put("stage", d.stage().wireName())
                .put("verdict", d.verdict().wireName()).put("reason", d.reason());
    }

    /** The attempt's events as bench-service stored them, one JSON object per line, in the order it received them. */
    private void writeEvents(Attempt attempt, Path attemptDir) throws IOException {
        StringBuilder lines = new StringBuilder();
        ObjectMapper oneLine = new ObjectMapper();
        String token = "";
        do {
            ListAttemptEventsResponse page = bench.listAttemptEvents(ListAttemptEventsRequest.newBuilder()
                    .setParent(attempt.getName()).setPageSize(1000).setPageToken(token).build());
            for (StoredEvent event : page.getEventsList()) {
                ObjectNode line = oneLine.createObjectNode().put("event_id", event.getEventId()).put("kind", event.getKind())
                        .put("event_time", Instant.ofEpochSecond(event.getEventTime().getSeconds(), event.getEventTime().getNanos()).toString());
                line.set("event", oneLine.readTree(event.getPayloadJson()));
                lines.append(oneLine.writeValueAsString(line)).append('\n');
            }
            token = page.getNextPageToken();
        } while (!token.isEmpty());
        Files.writeString(attemptDir.resolve("events.jsonl"), lines);
    }

    private ObjectNode usage(AgentUsage usage) {
        ObjectNode node = json.createObjectNode();
        node.put("llm_calls", usage.getLlmCalls());
        node.put("input_tokens", usage.getInputTokens());
        node.put("cached_input_tokens", usage.getCachedInputTokens());
        node.put("output_tokens", usage.getOutputTokens());
        node.put("cost_usd", usage.getCostUsd());
        node.put("priced", usage.getPriced());
        node.put("self_reported", usage.getSelfReported());
        node.put("probes", usage.getProbes());
        node.put("explores", usage.getExplores());
        node.put("heals", usage.getHeals());
        node.put("reraises", usage.getReraises());
        node.put("format_errors", usage.getFormatErrors());
        node.set("heal_point_exits", json.valueToTree(usage.getHealPointExitsList()));
        return node;
    }

    /** The attempt's trajectory as bench-service keeps it; an attempt whose agent kept none has none. */
    private void writeTrajectory(Attempt attempt, Path attemptDir) throws IOException {
        String trajectory;
        try {
            trajectory = bench.getAttemptTrajectory(GetAttemptTrajectoryRequest.newBuilder().setName(attempt.getName()).build())
                    .getJson();
        } catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
                return;
            }
            throw e;
        }
        Files.writeString(attemptDir.resolve("trajectory.json"), trajectory);
    }
}
