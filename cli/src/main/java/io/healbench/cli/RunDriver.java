package io.healbench.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.grpc.StatusRuntimeException;
import io.healbench.proto.bench.v1.Attempt;
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

    private final BenchServiceGrpc.BenchServiceBlockingStub bench;
    private final Path runsDir;
    private final PrintStream out;
    private final ProgressBar progress;
    private final ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    public RunDriver(BenchServiceGrpc.BenchServiceBlockingStub bench, Path runsDir, PrintStream out, PrintStream err, boolean terminal) {
        this.bench = bench;
        this.runsDir = runsDir;
        this.out = out;
        this.progress = new ProgressBar(err, terminal);
    }

    /** Returns the process exit code: 0 when the run completed, 1 when it failed. */
    public int run(CliArguments args) throws IOException {
        Run run = bench.createRun(CreateRunRequest.newBuilder()
                .addAllInstanceIds(args.instanceIds())
                .setAgent(args.agent())
                .setGuardMode(args.guardMode())
                .setRepeats(args.repeats())
                .setRequestId(UUID.randomUUID().toString())
                .build());
        progress.update(run.getAttemptsDone(), run.getAttemptsTotal(), run.getProceeded(), run.getPassed());
        Iterator<Run> updates = bench.watchRun(WatchRunRequest.newBuilder().setName(run.getName()).build());
        while (updates.hasNext()) {
            run = updates.next();
            progress.update(run.getAttemptsDone(), run.getAttemptsTotal(), run.getProceeded(), run.getPassed());
        }
        progress.finish();
        List<Attempt> attempts = listAttempts(run.getName());
        printTable(attempts);
        Path report = writeReport(run, attempts, args);
        out.printf("%nrun %s: %d/%d proceeded, %d/%d passed; report: %s%n",
                run.getName(), run.getProceeded(), run.getAttemptsTotal(), run.getPassed(), run.getAttemptsTotal(), report);
        if (args.json()) {
            ObjectNode summary = json.createObjectNode();
            summary.put("run_id", runId(run));
            summary.put("state", run.getState().name());
            summary.put("instances", run.getInstanceIdsCount());
            summary.put("attempts", run.getAttemptsTotal());
            summary.put("proceeded", run.getProceeded());
            summary.put("passed", run.getPassed());
            summary.put("trace_similarity", run.getTraceSimilarity());
            summary.put("report", report.toString());
            out.println(json.writer().without(SerializationFeature.INDENT_OUTPUT).writeValueAsString(summary));
        }
        return run.getState() == Run.State.SUCCEEDED ? 0 : 1;
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
        String format = "%-48s %-18s %-9s %-7s %-6s %-5s %s%n";
        out.printf(format, "INSTANCE", "ERROR TYPE", "PROCEEDED", "PASSED", "HEALS", "TS", "GUARD");
        for (Attempt a : attempts) {
            out.printf(format, a.getInstanceId() + (a.getRepeat() > 0 ? "#" + a.getRepeat() : ""),
                    a.getExceptionType().isEmpty() ? "-" : a.getExceptionType(),
                    yesNo(a.getProceeded()), yesNo(a.getPassed()),
                    a.getHealsApplied() + "/" + (a.getHealsApplied() + a.getHealsRejected()),
                    String.format("%.2f", a.getTraceSimilarity()),
                    guardSummary(a.getGuardDecisionsList()));
        }
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

    private Path writeReport(Run run, List<Attempt> attempts, CliArguments args) throws IOException {
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
        report.put("repeats", run.getRepeats());
        ObjectNode summary = report.putObject("summary");
        summary.put("instances", run.getInstanceIdsCount());
        summary.put("attempts", run.getAttemptsTotal());
        summary.put("proceeded", run.getProceeded());
        summary.put("passed", run.getPassed());
        summary.put("attempts_failed", run.getAttemptsFailed());
        summary.put("proceed_rate", rate(run.getProceeded(), run.getAttemptsTotal()));
        summary.put("correct_rate", rate(run.getPassed(), run.getAttemptsTotal()));
        summary.put("trace_similarity", run.getTraceSimilarity());
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
            row.put("failure_class", a.getFailureClass());
            row.put("exit_cause", a.getExitCause());
            row.put("detail", a.getDetail());
            row.put("wall_time_ms", a.getWallTimeMs());
            ArrayNode decisions = row.putArray("guard_decisions");
            for (GuardDecision d : a.getGuardDecisionsList()) {
                decisions.addObject().put("heal_point", d.getHealPoint()).put("stage", d.getStage())
                        .put("verdict", d.getVerdict()).put("reason", d.getReason());
            }
            Path instanceDir = dir.resolve("instances").resolve(a.getInstanceId() + (a.getRepeat() > 0 ? "-r" + a.getRepeat() : ""));
            Files.createDirectories(instanceDir);
            json.writeValue(instanceDir.resolve("report.json").toFile(), row);
        }
        Path file = dir.resolve("report.json");
        json.writeValue(file.toFile(), report);
        return file.toAbsolutePath();
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

    /** Runs on the process's console; failures become one line on stderr and exit code 1. */
    static int runOnConsole(BenchServiceGrpc.BenchServiceBlockingStub bench, Path runsDir, CliArguments args) {
        try {
            return new RunDriver(bench, runsDir, System.out, System.err, System.console() != null).run(args);
        } catch (StatusRuntimeException e) {
            System.err.println("healbench: " + e.getStatus().getCode() + ": " + e.getStatus().getDescription());
            return 1;
        } catch (IOException e) {
            System.err.println("healbench: cannot write the report: " + e.getMessage());
            return 1;
        }
    }
}
