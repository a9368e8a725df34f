package io.healbench.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.grpc.StatusRuntimeException;
import io.healbench.analysis.StatisticsTables;
import io.healbench.proto.agent.v1.AgentUsage;
import io.healbench.proto.bench.v1.Attempt;
import io.healbench.proto.bench.v1.BenchServiceGrpc;
import io.healbench.proto.bench.v1.CreateRunRequest;
import io.healbench.proto.guard.v1.GuardDecision;
import io.healbench.proto.bench.v1.Run;
import io.healbench.proto.bench.v1.WatchRunRequest;
import io.healbench.proto.guard.v1.GuardProtos;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
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

    private static final int REASON_WIDTH = 60;

    private final BenchServiceGrpc.BenchServiceBlockingStub bench;
    private final Path runsDir;
    private final PrintStream out;
    private final ProgressBar progress;
    private final ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private final RunReportFiles files;

    /** Where this process's external agents connect; null in remote mode (the server's gateway is its own). */
    private final ExternalEndpoint endpoint;

    public RunDriver(BenchServiceGrpc.BenchServiceBlockingStub bench, Path runsDir, PrintStream out, PrintStream err, boolean terminal,
            ExternalEndpoint endpoint) {
        this.bench = bench;
        this.endpoint = endpoint;
        this.runsDir = runsDir;
        this.out = out;
        this.progress = new ProgressBar(err, terminal);
        this.files = new RunReportFiles(bench, runsDir);
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
                .setGuardMode(GuardProtos.mode(args.guardMode()))
                .setAgentPool(args.pool() == null ? "" : args.pool())
                .setRepeats(args.repeats())
                .setRequestId(UUID.randomUUID().toString())
                .setAgentConfig(args.llm().toWire())
                .setSeed(args.seed())
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
        List<Attempt> attempts = files.listAttempts(run.getName());
        printTable(attempts);
        RunSummary summary = RunSummary.of(attempts);
        int exitStatus = exitStatus(run, summary);
        RunReportFiles.Written written = files.write(run, attempts, invocation(args, exitStatus));
        Path report = written.report();
        summary.print(out);
        StatisticsTables.printRun(written.statistics(), out);
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
            line.set("by_class", json.valueToTree(summary.byClass()));
            line.set("statistics", RunReportFiles.statisticsJson(written.statistics()));
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
            if (a.getSummary().getWallTimeMs() > 0 && AttemptStatus.of(a).outcome().chargedToAgent()) {
                times.put(a.getInstanceId(), a.getSummary().getWallTimeMs());
            }
        }
        return times;
    }

    private void printTable(List<Attempt> attempts) {
        String format = "%-48s %-18s %-14s %-9s %-7s %-6s %-5s %-9s %-40s %s%n";
        out.printf(format, "INSTANCE", "ERROR TYPE", "STATUS", "PROCEEDED", "PASSED", "HEALS", "TS", "COST", "GUARD", "REASON");
        for (Attempt a : attempts) {
            AttemptStatus status = AttemptStatus.of(a);
            out.printf(format, a.getInstanceId() + (a.getRepeat() > 0 ? "#" + a.getRepeat() : ""),
                    a.getExceptionType().isEmpty() ? "-" : a.getExceptionType(),
                    status.label(),
                    yesNo(a.getSummary().getProceeded()), yesNo(a.getSummary().getPassed()),
                    a.getSummary().getHealsApplied() + "/" + (a.getSummary().getHealsApplied() + a.getSummary().getHealsRejected()),
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
        decisions.stream().map(GuardProtos::decision)
                .forEach(d -> counts.merge(d.stage().wireName() + " " + d.verdict().wireName(), 1, Integer::sum));
        return counts.entrySet().stream().map(e -> e.getKey() + " x" + e.getValue()).collect(Collectors.joining(", "));
    }

    /**
     * A run whose attempts all ended has its own status when the harness failed some of them, even all of them (the run
     * is then FAILED, yet nothing went wrong with the run itself); a cancelled run, or one that did not end, failed.
     */
    private static int exitStatus(Run run, RunSummary summary) {
        boolean ended = run.getState() == Run.State.SUCCEEDED || run.getState() == Run.State.FAILED;
        if (!ended || (run.getState() == Run.State.FAILED && summary.infrastructureFailures() == 0)) {
            return ExitStatus.FAILED;
        }
        return summary.infrastructureFailures() > 0 ? ExitStatus.INFRASTRUCTURE_FAILURES : ExitStatus.COMPLETED;
    }

    /** How this run was started, for its report: re-grading keeps it. */
    private ObjectNode invocation(CliArguments args, int exitStatus) {
        ObjectNode invocation = json.createObjectNode();
        invocation.put("mode", args.standalone() ? "standalone" : "remote:" + args.server());
        if (args.heals() != null) {
            invocation.put("heals", args.heals());
        }
        if (args.standalone()) {
            invocation.put("parallel", args.parallel());
        }
        invocation.put("exit_code", exitStatus);
        return invocation;
    }

    private static String runId(Run run) {
        return run.getName().substring(run.getName().indexOf('/') + 1);
    }

    private static String yesNo(boolean value) {
        return value ? "yes" : "no";
    }

    /** Runs on the process's console; failures become one line on stderr and exit status 1. */
    public static int runOnConsole(BenchServiceGrpc.BenchServiceBlockingStub bench, Path runsDir, CliArguments args,
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
