package io.healbench.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.grpc.StatusRuntimeException;
import com.google.protobuf.util.JsonFormat;
import io.grpc.Status;
import io.healbench.proto.agent.v1.AgentUsage;
import io.healbench.proto.bench.v1.Attempt;
import io.healbench.proto.bench.v1.GetAttemptTrajectoryRequest;
import io.healbench.proto.bench.v1.BenchServiceGrpc;
import io.healbench.proto.bench.v1.CreateRunRequest;
import io.healbench.proto.bench.v1.GuardDecision;
import io.healbench.proto.bench.v1.ListAttemptsRequest;
import io.healbench.proto.bench.v1.ListAttemptsResponse;
import io.healbench.proto.bench.v1.Run;
import io.healbench.proto.bench.v1.WatchRunRequest;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Runs one benchmark run through bench-service's gRPC API, the same way in standalone and remote
 * mode: create, watch with a progress bar, list attempts, print the table, write the report.
 */
public final class RunDriver {

    static final String REPORT_SCHEMA = "healbench.report/v1";
    private static final int REASON_WIDTH = 60;

    private final BenchServiceGrpc.BenchServiceBlockingStub bench;
    private final Path runsDir;
    private final PrintStream out;
    private final ProgressBar progress;
    private final ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** Where this process's external agents connect; null in remote mode (the server's gateway is its own). */
    private final ExternalEndpoint endpoint;

    public RunDriver(BenchServiceGrpc.BenchServiceBlockingStub bench, Path runsDir, PrintStream out, PrintStream err, boolean terminal,
            ExternalEndpoint endpoint) {
        this.bench = bench;
        this.endpoint = endpoint;
        this.runsDir = runsDir;
        this.out = out;
        this.progress = new ProgressBar(err, terminal);
    }

    /**
     * Returns the process exit status ({@link ExitStatus}): completed, failed, or completed with attempts that failed
     * for an infrastructure reason.
     */
    public int run(CliArguments args) throws IOException {
        long started = System.nanoTime();
        Run run = bench.createRun(CreateRunRequest.newBuilder()
                .addAllInstanceIds(args.instanceIds())
                .setAgent(args.agent())
                .setGuardMode(args.guardMode())
                .setRepeats(args.repeats())
                .setRequestId(UUID.randomUUID().toString())
                .setAgentConfig(args.llm().toWire())
                .build());
        if (args.externalAgent()) {
            // The run waits for external agents: they need its name, and in standalone mode where and how to connect.
            out.println(endpoint == null ? "{\"run\":\"" + run.getName() + "\"}" : endpoint.jsonLine(run.getName()));
            out.flush();
        }
        showProgress(run);
        Iterator<Run> updates = bench.watchRun(WatchRunRequest.newBuilder().setName(run.getName()).build());
        while (updates.hasNext()) {
            run = updates.next();
            showProgress(run);
        }
        progress.finish();
        List<Attempt> attempts = listAttempts(run.getName());
        printTable(attempts);
        RunSummary summary = RunSummary.of(attempts);
        int exitStatus = run.getState() != Run.State.SUCCEEDED ? ExitStatus.FAILED
                : summary.infrastructureFailures() > 0 ? ExitStatus.INFRASTRUCTURE_FAILURES : ExitStatus.COMPLETED;
        Path report = writeReport(run, attempts, summary, args, exitStatus);
        summary.print(out);
        out.printf("%nrun %s: %d/%d proceeded, %d/%d passed (of %d attempts the agent is answerable for); report: %s%n",
                run.getName(), run.getProceeded(), summary.agentAttempts(), run.getPassed(), summary.agentAttempts(),
                summary.agentAttempts(), report);
        if (summary.infrastructureFailures() > 0) {
            out.printf("%d attempt%s failed for an infrastructure reason, not the agent's (exit status %d)%n",
                    summary.infrastructureFailures(), summary.infrastructureFailures() == 1 ? "" : "s", exitStatus);
        }
        if (args.standalone()) {  // a server's run shares its workers with others: its wall time says little
            RunEstimate.load(runsDir).record(programTimes(attempts), (System.nanoTime() - started) / 1_000_000, args.parallel());
        }
        if (args.json()) {
            ObjectNode line = json.createObjectNode();
            line.put("run_id", runId(run));
            line.put("state", run.getState().name());
            line.put("instances", run.getInstanceIdsCount());
            line.put("attempts", run.getAttemptsTotal());
            line.put("proceeded", run.getProceeded());
            line.put("passed", run.getPassed());
            line.put("trace_similarity", run.getTraceSimilarity());
            line.set("failures", json.valueToTree(summary.failures()));
            AgentUsage usage = run.getUsage();
            line.put("llm_calls", usage.getLlmCalls());
            line.put("input_tokens", usage.getInputTokens());
            line.put("cached_input_tokens", usage.getCachedInputTokens());
            line.put("output_tokens", usage.getOutputTokens());
            line.put("cost_usd", usage.getCostUsd());
            line.put("exit_code", exitStatus);
            line.put("report", report.toString());
            out.println(json.writer().without(SerializationFeature.INDENT_OUTPUT).writeValueAsString(line));
        }
        return exitStatus;
    }

    private void showProgress(Run run) {
        progress.update(run.getAttemptsDone(), run.getAttemptsTotal(), run.getProceeded(), run.getPassed(), run.getAttemptsFailed());
    }

    /** Each instance's program time, for the next run's estimate; attempts the platform failed say nothing about it. */
    private static Map<String, Long> programTimes(List<Attempt> attempts) {
        Map<String, Long> times = new LinkedHashMap<>();
        for (Attempt a : attempts) {
            if (a.getWallTimeMs() > 0 && !AttemptStatus.INFRASTRUCTURE.equals(AttemptStatus.of(a).label())) {
                times.put(a.getInstanceId(), a.getWallTimeMs());
            }
        }
        return times;
    }

    private List<Attempt> listAttempts(String runName) {
        List<Attempt> attempts = new ArrayList<>();
        String token = "";
        do {
            ListAttemptsResponse page = bench.listAttempts(ListAttemptsRequest.newBuilder()
                    .setParent(runName).setPageSize(200).setPageToken(token).build());
            attempts.addAll(page.getAttemptsList());
            token = page.getNextPageToken();
        } while (!token.isEmpty());
        return attempts;
    }

    private void printTable(List<Attempt> attempts) {
        String format = "%-48s %-18s %-14s %-9s %-7s %-6s %-5s %-9s %-40s %s%n";
        out.printf(format, "INSTANCE", "ERROR TYPE", "STATUS", "PROCEEDED", "PASSED", "HEALS", "TS", "COST", "GUARD", "REASON");
        for (Attempt a : attempts) {
            AttemptStatus status = AttemptStatus.of(a);
            out.printf(format, a.getInstanceId() + (a.getRepeat() > 0 ? "#" + a.getRepeat() : ""),
                    a.getExceptionType().isEmpty() ? "-" : a.getExceptionType(),
                    status.label(),
                    yesNo(a.getProceeded()), yesNo(a.getPassed()),
                    a.getHealsApplied() + "/" + (a.getHealsApplied() + a.getHealsRejected()),
                    String.format("%.2f", a.getTraceSimilarity()),
                    cost(a.getUsage()),
                    guardSummary(a.getGuardDecisionsList()),
                    status.shortReason(REASON_WIDTH));
        }
    }

    /**
     * An attempt's cost: {@code -} without model calls, {@code unpriced} when a call had no price, and {@code ~$}
     * when an external agent reported it itself (unverified).
     */
    static String cost(AgentUsage usage) {
        if (usage.getLlmCalls() == 0) {
            return "-";
        }
        if (usage.getSelfReported()) {
            return String.format("~$%.4f", usage.getCostUsd());
        }
        return usage.getPriced() ? String.format("$%.4f", usage.getCostUsd()) : "unpriced";
    }

    /** Counts decisions per stage and verdict, e.g. {@code gate accepted x3, gate rejected x1}. */
    static String guardSummary(List<GuardDecision> decisions) {
        if (decisions.isEmpty()) {
            return "-";
        }
        Map<String, Integer> counts = new LinkedHashMap<>();
        decisions.forEach(d -> counts.merge(d.getStage() + " " + d.getVerdict(), 1, Integer::sum));
        return counts.entrySet().stream().map(e -> e.getKey() + " x" + e.getValue()).collect(Collectors.joining(", "));
    }

    private Path writeReport(Run run, List<Attempt> attempts, RunSummary runSummary, CliArguments args, int exitStatus)
            throws IOException {
        Path dir = runsDir.resolve(runId(run));
        Files.createDirectories(dir);
        ObjectNode report = json.createObjectNode();
        report.put("schema", REPORT_SCHEMA);
        report.put("run_id", runId(run));
        report.put("state", run.getState().name());
        report.put("written_at", Instant.now().toString());
        report.put("mode", args.standalone() ? "standalone" : "remote:" + args.server());
        report.put("agent", run.getAgent());
        if (args.heals() != null) {
            report.put("heals", args.heals());
        }
        report.put("guard_mode", run.getGuardMode());
        if (args.llm().given()) {
            report.set("agent_config", json.readTree(JsonFormat.printer().preservingProtoFieldNames().print(run.getAgentConfig())));
        }
        report.put("repeats", run.getRepeats());
        report.put("exit_code", exitStatus);
        if (args.standalone()) {
            report.put("parallel", args.parallel());
        }
        ObjectNode summary = report.putObject("summary");
        summary.put("instances", run.getInstanceIdsCount());
        summary.put("attempts", run.getAttemptsTotal());
        // The rates' denominator: attempts that failed outside the agent (infrastructure, grader) say nothing about it.
        summary.put("agent_attempts", runSummary.agentAttempts());
        summary.put("proceeded", run.getProceeded());
        summary.put("passed", run.getPassed());
        summary.put("attempts_failed", run.getAttemptsFailed());
        summary.put("proceed_rate", rate(run.getProceeded(), runSummary.agentAttempts()));
        summary.put("correct_rate", rate(run.getPassed(), runSummary.agentAttempts()));
        summary.put("trace_similarity", run.getTraceSimilarity());
        summary.set("failures", json.valueToTree(runSummary.failures()));
        summary.set("by_status", json.valueToTree(runSummary.byStatus()));
        summary.set("first_reasons", json.valueToTree(runSummary.firstReasons()));
        summary.set("usage", usage(run.getUsage()));
        // What the agents did, like the reference's action analysis: actions of each kind over all attempts.
        ObjectNode actions = summary.putObject("actions");
        actions.put("probe", run.getUsage().getProbes());
        actions.put("explore", run.getUsage().getExplores());
        actions.put("heal", run.getUsage().getHeals());
        actions.put("reraise", run.getUsage().getReraises());
        ArrayNode rows = report.putArray("attempts");
        for (Attempt a : attempts) {
            ObjectNode row = rows.addObject();
            row.put("instance_id", a.getInstanceId());
            row.put("repeat", a.getRepeat());
            row.put("state", a.getState().name());
            row.put("exception_type", a.getExceptionType());
            row.put("proceeded", a.getProceeded());
            row.put("passed", a.getPassed());
            row.put("heal_points", a.getHealPoints());
            row.put("trace_similarity", a.getTraceSimilarity());
            row.put("heals_applied", a.getHealsApplied());
            row.put("heals_rejected", a.getHealsRejected());
            AttemptStatus status = AttemptStatus.of(a);
            row.put("status", status.label());
            row.put("status_reason", status.reason());
            row.put("failure_class", a.getFailureClass());
            row.put("exit_cause", a.getExitCause());
            row.put("detail", a.getDetail());
            row.put("wall_time_ms", a.getWallTimeMs());
            row.set("usage", usage(a.getUsage()));
            ArrayNode decisions = row.putArray("guard_decisions");
            for (GuardDecision d : a.getGuardDecisionsList()) {
                decisions.addObject().put("heal_point", d.getHealPoint()).put("stage", d.getStage())
                        .put("verdict", d.getVerdict()).put("reason", d.getReason());
            }
            Path instanceDir = dir.resolve("instances").resolve(a.getInstanceId() + (a.getRepeat() > 0 ? "-r" + a.getRepeat() : ""));
            Files.createDirectories(instanceDir);
            json.writeValue(instanceDir.resolve("report.json").toFile(), row);
            if (a.getUsage().getLlmCalls() > 0 || args.llm().given() || args.externalAgent()) {
                writeTrajectory(a, instanceDir);
            }
        }
        Path file = dir.resolve("report.json");
        json.writeValue(file.toFile(), report);
        return file.toAbsolutePath();
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

    /** The attempt's trajectory as bench-service keeps it; an attempt that never reached its agent has none. */
    private void writeTrajectory(Attempt attempt, Path instanceDir) throws IOException {
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
        Files.writeString(instanceDir.resolve("trajectory.json"), trajectory);
    }

    private static double rate(int count, int total) {
        return total == 0 ? 0.0 : (double) count / total;
    }

    private static String runId(Run run) {
        return run.getName().substring(run.getName().indexOf('/') + 1);
    }

    private static String yesNo(boolean value) {
        return value ? "yes" : "no";
    }

    /** Runs on the process's console; failures become one line on stderr and exit status 1. */
    static int runOnConsole(BenchServiceGrpc.BenchServiceBlockingStub bench, Path runsDir, CliArguments args,
            ExternalEndpoint endpoint) {
        try {
            return new RunDriver(bench, runsDir, System.out, System.err, System.console() != null, endpoint).run(args);
        } catch (StatusRuntimeException e) {
            System.err.println("healbench: " + e.getStatus().getCode() + ": " + e.getStatus().getDescription());
            return ExitStatus.FAILED;
        } catch (IOException e) {
            System.err.println("healbench: cannot write the report: " + e.getMessage());
            return ExitStatus.FAILED;
        }
    }
}
