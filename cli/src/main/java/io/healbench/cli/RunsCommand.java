package io.healbench.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.grpc.StatusRuntimeException;
import io.healbench.analysis.HtmlReport;
import io.healbench.analysis.RunComparison;
import io.healbench.analysis.RunRecord;
import io.healbench.analysis.StatisticsTables;
import io.healbench.proto.bench.v1.BenchServiceGrpc;
import io.healbench.proto.bench.v1.CancelRunRequest;
import io.healbench.proto.bench.v1.DeleteRunRequest;
import io.healbench.proto.bench.v1.GetRunRequest;
import io.healbench.proto.bench.v1.ListRunsRequest;
import io.healbench.proto.bench.v1.ListRunsResponse;
import io.healbench.proto.bench.v1.RegradeRunRequest;
import io.healbench.proto.bench.v1.RegradeRunResponse;
import io.healbench.proto.bench.v1.Run;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@code healbench runs list|show|cancel|delete|regrade|compare}: the runs bench-service keeps, through its API, the
 * same in standalone mode (the store under runs/store) and against a server.
 */
public final class RunsCommand {

    static final String USAGE = """
            usage: healbench runs list [--json]
                   healbench runs show RUN [--json]       the run's results; rewrites runs/RUN/ from what is stored
                   healbench runs cancel RUN
                   healbench runs delete RUN              the stored run and its runs/RUN/ directory
                   healbench runs regrade RUN [--json]    recomputes every outcome and figure from the stored events
                   healbench runs compare RUN RUN... [--json]   side by side, paired against the first
              RUN is a run id, runs/ID, or a prefix of one. Add --server HOST:PORT [--token TOKEN] to use a server;
              without it the standalone store is used (runs/store, or $HEALBENCH_STORE).""";

    private static final ObjectMapper JSON = new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);

    private final BenchServiceGrpc.BenchServiceBlockingStub bench;
    private final Path runsDir;
    private final PrintStream out;
    private final RunReportFiles files;

    public RunsCommand(BenchServiceGrpc.BenchServiceBlockingStub bench, Path runsDir, PrintStream out) {
        this.bench = bench;
        this.runsDir = runsDir;
        this.out = out;
        this.files = new RunReportFiles(bench, runsDir);
    }

    /** The options that say where the runs are: {@code --server} and {@code --token} with their values. */
    public record Target(String server, String token, List<String> rest) {

        public static Target parse(String[] args) {
            String server = null;
            String token = null;
            List<String> rest = new ArrayList<>();
            for (int i = 0; i < args.length; i++) {
                if ((args[i].equals("--server") || args[i].equals("--token")) && i + 1 < args.length) {
                    if (args[i].equals("--server")) {
                        server = args[++i];
                    } else {
                        token = args[++i];
                    }
                } else {
                    rest.add(args[i]);
                }
            }
            return new Target(server, token, rest);
        }
    }

    /** Runs {@code args} (after {@code runs}, without --server/--token); returns the exit status. */
    public int run(List<String> args) {
        boolean json = args.contains("--json");
        List<String> words = args.stream().filter(a -> !a.equals("--json")).toList();
        if (words.isEmpty()) {
            return usage("say what to do with the runs");
        }
        List<String> ids = words.subList(1, words.size());
        try {
            switch (words.get(0)) {
                case "list" -> list(json);
                case "show" -> show(one(ids), json);
                case "cancel" -> cancel(one(ids));
                case "delete" -> delete(one(ids));
                case "regrade" -> regrade(one(ids), json);
                case "compare" -> {
                    if (ids.size() < 2) {
                        return usage("compare needs at least two runs");
                    }
                    compare(ids, json);
                }
                default -> {
                    return usage("unknown runs command '" + words.get(0) + "'");
                }
            }
            return ExitStatus.COMPLETED;
        } catch (CliArguments.UsageException e) {
            return usage(e.getMessage());
        } catch (StatusRuntimeException e) {
            System.err.println("healbench runs: " + e.getStatus().getCode() + ": " + e.getStatus().getDescription());
            return ExitStatus.FAILED;
        } catch (IOException e) {
            System.err.println("healbench runs: " + e.getMessage());
            return ExitStatus.FAILED;
        }
    }

    private static int usage(String problem) {
        System.err.println("healbench runs: " + problem);
        System.err.println(USAGE);
        return ExitStatus.USAGE;
    }

    private static String one(List<String> ids) {
        if (ids.size() != 1) {
            throw new CliArguments.UsageException("name one run, got " + ids.size());
        }
        return ids.get(0);
    }

    private List<Run> allRuns() {
        List<Run> runs = new ArrayList<>();
        String token = "";
        do {
            ListRunsResponse page = bench.listRuns(ListRunsRequest.newBuilder().setPageSize(200).setPageToken(token).build());
            runs.addAll(page.getRunsList());
            token = page.getNextPageToken();
        } while (!token.isEmpty());
        return runs;
    }

    /** A run's full name from an id, a name or a unique prefix of an id. */
    private String resolve(String given) {
        String id = given.startsWith("runs/") ? given.substring(5) : given;
        List<String> matching = allRuns().stream().map(r -> RunRecords.id(r.getName())).filter(r -> r.startsWith(id)).toList();
        if (matching.contains(id)) {
            return "runs/" + id;
        }
        if (matching.size() != 1) {
            throw new CliArguments.UsageException(matching.isEmpty() ? "no run matches '" + given + "'"
                    : "'" + given + "' matches " + matching.size() + " runs: " + String.join(", ", matching));
        }
        return "runs/" + matching.get(0);
    }

    private void list(boolean json) throws IOException {
        List<Run> runs = allRuns();
        if (json) {
            ArrayNode array = JSON.createArrayNode();
            for (Run run : runs) {
                ObjectNode node = array.addObject();
                node.put("run_id", RunRecords.id(run.getName()));
                node.put("create_time", createTime(run));
                node.put("state", run.getState().name());
                node.put("agent", run.getAgent());
                node.put("guard_mode", RunRecords.guardMode(run));
                node.put("repeats", run.getRepeats());
                node.put("attempts", run.getAttemptsTotal());
                node.put("attempts_done", run.getAttemptsDone());
                node.put("attempts_failed", run.getAttemptsFailed());
                node.put("proceeded", run.getProceeded());
                node.put("passed", run.getPassed());
                node.put("trace_similarity", run.getTraceSimilarity());
                node.put("cost_usd", run.getUsage().getCostUsd());
            }
            out.println(JSON.writeValueAsString(array));
            return;
        }
        String format = "%-36s  %-20s  %-9s  %-22s  %-7s  %9s  %6s  %6s  %5s  %s%n";
        out.printf(format, "RUN", "CREATED", "STATE", "AGENT", "GUARD", "ATTEMPTS", "PR", "CR", "TS", "COST");
        for (Run run : runs) {
            int charged = run.getAttemptsDone() - run.getAttemptsFailed();
            String backbone = run.getAgentConfig().getBackbone();
            out.printf(format, RunRecords.id(run.getName()), createTime(run).substring(0, 19).replace('T', ' '), run.getState().name(),
                    backbone.isEmpty() ? run.getAgent() : run.getAgent() + ":" + backbone, RunRecords.guardMode(run),
                    run.getAttemptsDone() + "/" + run.getAttemptsTotal(), percent(run.getProceeded(), charged),
                    percent(run.getPassed(), charged), String.format("%.2f", run.getTraceSimilarity()),
                    run.getUsage().getLlmCalls() == 0 ? "-" : String.format("$%.4f", run.getUsage().getCostUsd()));
        }
        out.printf("%d run%s%n", runs.size(), runs.size() == 1 ? "" : "s");
    }

    private void show(String given, boolean json) throws IOException {
        Run run = bench.getRun(GetRunRequest.newBuilder().setName(resolve(given)).build());
        report(run, json, "", null);
    }

    private void cancel(String given) {
        Run run = bench.cancelRun(CancelRunRequest.newBuilder().setName(resolve(given)).build());
        out.printf("%s: %s (%d/%d attempts ended)%n", run.getName(), run.getState().name(), run.getAttemptsDone(),
                run.getAttemptsTotal());
    }

    private void delete(String given) throws IOException {
        String name = resolve(given);
        bench.deleteRun(DeleteRunRequest.newBuilder().setName(name).build());
        Path dir = runsDir.resolve(RunRecords.id(name));
        if (Files.isDirectory(dir)) {
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        out.println("deleted " + name);
    }

    private void regrade(String given, boolean json) throws IOException {
        RegradeRunResponse regraded = bench.regradeRun(RegradeRunRequest.newBuilder().setName(resolve(given)).build());
        report(regraded.getRun(), json, String.format("regraded from the stored events: %d attempt%s changed, %d without events",
                regraded.getAttemptsChanged(), regraded.getAttemptsChanged() == 1 ? "" : "s", regraded.getAttemptsWithoutEvents()),
                regraded);
    }

    /** Writes the run's files from what bench-service keeps, then prints its statistics (or one JSON line). */
    private void report(Run run, boolean json, String note, RegradeRunResponse regraded) throws IOException {
        RunReportFiles.Written written = files.write(run, files.listAttempts(run.getName()), null);
        if (json) {
            ObjectNode line = JSON.createObjectNode();
            line.put("run_id", RunRecords.id(run.getName()));
            line.put("state", run.getState().name());
            if (regraded != null) {
                line.put("attempts_changed", regraded.getAttemptsChanged());
                line.put("attempts_without_events", regraded.getAttemptsWithoutEvents());
            }
            line.set("statistics", RunReportFiles.statisticsJson(written.statistics()));
            line.put("report", written.report().toString());
            out.println(JSON.writeValueAsString(line));
            return;
        }
        if (!note.isEmpty()) {
            out.println(note);
        }
        out.printf("run %s: %s, %s, guard %s, %d attempts%n", run.getName(), run.getState().name(), run.getAgent(),
                RunRecords.guardMode(run), run.getAttemptsTotal());
        StatisticsTables.printRun(written.statistics(), out);
        out.println("report: " + written.report() + " (and report.html beside it)");
    }

    private void compare(List<String> given, boolean json) throws IOException {
        List<RunRecord> records = new ArrayList<>();
        long seed = 0;
        for (String one : given) {
            Run run = bench.getRun(GetRunRequest.newBuilder().setName(resolve(one)).build());
            if (records.isEmpty()) {
                seed = run.getSeed();
            }
            records.add(RunRecords.of(run, files.listAttempts(run.getName())));
        }
        RunComparison comparison = RunComparison.of(records, seed);
        Path html = runsDir.resolve("compare-" + String.join("-", records.stream().map(r -> r.runId().substring(0, 8)).toList()) + ".html");
        Files.createDirectories(runsDir);
        Files.writeString(html, HtmlReport.ofComparison(records, comparison));
        if (json) {
            ObjectNode line = JSON.createObjectNode();
            line.set("comparison", JSON.valueToTree(comparison));
            line.put("report", html.toAbsolutePath().toString());
            out.println(JSON.writeValueAsString(line));
            return;
        }
        StatisticsTables.printComparison(comparison, out);
        out.println("report: " + html.toAbsolutePath());
    }

    private static String createTime(Run run) {
        return Instant.ofEpochSecond(run.getCreateTime().getSeconds(), run.getCreateTime().getNanos()).toString();
    }

    private static String percent(int count, int total) {
        return total == 0 ? "-" : String.format("%.1f%%", 100.0 * count / total);
    }
}
