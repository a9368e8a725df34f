package io.healbench.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.healbench.analysis.ChartsInBrowser;
import io.healbench.cli.ExitStatus;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The standalone store as a user meets it: runs that outlive the process, repeats with their statistics, re-grading
 * from the stored events, deletion, and one process at a time on a store. Each test has a store of its own
 * (HEALBENCH_STORE), so nothing here depends on the runs a developer keeps under runs/store.
 */
class RunsStoreIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static Path root;

    @BeforeAll
    static void locate() {
        root = ProcessRunner.repoRoot();
    }

    private static ProcessRunner.Result cli(Path store, String... args) throws Exception {
        return ProcessRunner.run(ProcessRunner.standalone(root, args), Map.of("HEALBENCH_HOME", root.toString(), "HEALBENCH_STORE", store.toString()), root, 900);
    }

    private static JsonNode lastJsonLine(ProcessRunner.Result result) throws Exception {
        List<String> lines = result.stdoutLines();
        assertFalse(lines.isEmpty(), "stderr:\n" + result.stderr());
        return JSON.readTree(lines.get(lines.size() - 1));
    }

    private static String context(ProcessRunner.Result result) {
        return "exit " + result.exitCode() + "\nstdout:\n" + result.stdout() + "\nstderr:\n" + result.stderr();
    }

    @Test
    void repeatsReportIntervalsAndPassAtKAndRegradingRestoresEveryFigureFromTheStoredEvents() throws Exception {
        Path store = Files.createTempDirectory("healbench-store");
        ProcessRunner.Result run = cli(store, "run", "--repeats", "3", "--subject", "toolz", "--limit", "4", "--json");
        assertEquals(ExitStatus.COMPLETED, run.exitCode(), context(run));
        JsonNode line = lastJsonLine(run);
        String runId = line.get("run_id").asText();
        JsonNode statistics = line.get("statistics");
        assertEquals(12, statistics.get("attempts").asInt(), "4 instances, 3 repeats each: " + statistics);
        for (String rate : List.of("proceed_rate", "correct_rate", "trace_similarity")) {
            JsonNode estimate = statistics.get(rate);
            assertTrue(estimate.get("low").asDouble() <= estimate.get("value").asDouble()
                    && estimate.get("value").asDouble() <= estimate.get("high").asDouble(), rate + " lies in its interval: " + estimate);
        }
        assertEquals(List.of("1", "2", "3"), fieldNames(statistics.get("pass_at_k")), statistics.toString());
        assertEquals(List.of("1", "2", "3"), fieldNames(statistics.get("pass_hat_k")), statistics.toString());
        assertTrue(statistics.get("pass_at_k").get("3").asDouble() >= statistics.get("pass_hat_k").get("3").asDouble(),
                "at least one of three passes as often as all three do: " + statistics);
        assertTrue(run.stdout().contains("pass@k"), "the statistics are printed: " + context(run));
        Path runDir = root.resolve("runs").resolve(runId);
        JsonNode manifest = JSON.readTree(runDir.resolve("run.json").toFile());
        assertEquals(4, manifest.get("instances").size(), manifest.toString());
        assertEquals(64, manifest.get("healrt_fingerprint").asText().length(), manifest.toString());
        assertFalse(manifest.get("git_commit").asText().isEmpty(), manifest.toString());
        assertTrue(Files.isRegularFile(runDir.resolve("report.html")), "the HTML report sits beside report.json");

        // Someone edits the stored outcomes behind the service's back: every attempt now reads as the grader's failure.
        int tampered = tamper(store, runId);
        assertEquals(12, tampered);
        ProcessRunner.Result wrong = cli(store, "runs", "show", runId, "--json");
        assertEquals(ExitStatus.COMPLETED, wrong.exitCode(), context(wrong));
        assertNotEquals(statistics, lastJsonLine(wrong).get("statistics"), "the tampering shows before re-grading");

        ProcessRunner.Result regraded = cli(store, "runs", "regrade", runId.substring(0, 8), "--json");
        assertEquals(ExitStatus.COMPLETED, regraded.exitCode(), context(regraded));
        JsonNode regradedLine = lastJsonLine(regraded);
        assertEquals(12, regradedLine.get("attempts_changed").asInt(), regradedLine.toString());
        assertEquals(statistics, regradedLine.get("statistics"), "every figure is recomputed exactly from the stored events");
    }

    @Test
    void runsOutliveTheProcessAndCanBeDeletedWithTheirFiles() throws Exception {
        Path store = Files.createTempDirectory("healbench-store");
        List<String> slice = ProcessRunner.firstStdlibInstances(root, 2);
        ProcessRunner.Result run = cli(store, "run", "--instances", String.join(",", slice), "--json");
        assertEquals(ExitStatus.COMPLETED, run.exitCode(), context(run));
        String runId = lastJsonLine(run).get("run_id").asText();
        // Each attempt's stored events come through the API into its directory.
        List<String> kinds = Files.readAllLines(root.resolve("runs").resolve(runId).resolve("instances").resolve(slice.get(0))
                .resolve("events.jsonl")).stream().map(line -> {
                    try {
                        return JSON.readTree(line).get("kind").asText();
                    } catch (Exception e) {
                        throw new AssertionError(line, e);
                    }
                }).toList();
        assertTrue(kinds.contains("started") && kinds.contains("completed"), kinds.toString());

        // A new process on the same store: the run is still there.
        ProcessRunner.Result listed = cli(store, "runs", "list", "--json");
        assertEquals(ExitStatus.COMPLETED, listed.exitCode(), context(listed));
        JsonNode runs = lastJsonLine(listed);
        assertEquals(1, runs.size(), runs.toString());
        assertEquals(runId, runs.get(0).get("run_id").asText());
        assertEquals("SUCCEEDED", runs.get(0).get("state").asText());

        ProcessRunner.Result deleted = cli(store, "runs", "delete", runId);
        assertEquals(ExitStatus.COMPLETED, deleted.exitCode(), context(deleted));
        assertFalse(Files.exists(root.resolve("runs").resolve(runId)), "its directory went with it");
        ProcessRunner.Result empty = cli(store, "runs", "list", "--json");
        assertEquals(0, lastJsonLine(empty).size(), context(empty));
        ProcessRunner.Result gone = cli(store, "runs", "show", runId);
        assertEquals(ExitStatus.USAGE, gone.exitCode(), context(gone));
        assertTrue(gone.stderr().contains("no run matches"), context(gone));
    }

    @Test
    void aSecondProcessOnAStoreInUseIsToldSoAndTouchesNothing() throws Exception {
        Path store = Files.createTempDirectory("healbench-store");
        ProcessBuilder serve = new ProcessBuilder(ProcessRunner.standalone(root, "serve"))
                .directory(root.toFile()).redirectErrorStream(true);
        serve.environment().putAll(Map.of("HEALBENCH_HOME", root.toString(), "HEALBENCH_STORE", store.toString()));
        Process serving = serve.start();
        try {
            String endpoint = new BufferedReader(new InputStreamReader(serving.getInputStream(), StandardCharsets.UTF_8)).readLine();
            assertTrue(endpoint != null && endpoint.contains("\"grpc\""), "serve came up: " + endpoint);
            ProcessRunner.Result second = cli(store, "runs", "list");
            assertEquals(ExitStatus.NOT_READY, second.exitCode(), context(second));
            assertTrue(second.stderr().contains("another healbench process is using the run store"), context(second));
        } finally {
            serving.destroy();
            serving.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void compareAlignsARulesRunWithAReplayRunAndItsHtmlViewRendersInChromium() throws Exception {
        Path store = Files.createTempDirectory("healbench-store");
        List<String> slice = ProcessRunner.firstStdlibInstances(root, 4);
        String instances = String.join(",", slice);
        ProcessRunner.Result rules = cli(store, "run", "--agent", "rules", "--instances", instances, "--json");
        assertEquals(ExitStatus.COMPLETED, rules.exitCode(), context(rules));
        ProcessRunner.Result replay = cli(store, "run", "--agent", "replay", "--heals", "dataset/heals/unsafe-default",
                "--instances", instances, "--json");
        assertEquals(ExitStatus.COMPLETED, replay.exitCode(), context(replay));
        String rulesId = lastJsonLine(rules).get("run_id").asText();
        String replayId = lastJsonLine(replay).get("run_id").asText();

        ProcessRunner.Result table = cli(store, "runs", "compare", rulesId, replayId);
        assertEquals(ExitStatus.COMPLETED, table.exitCode(), context(table));
        assertTrue(table.stdout().contains("McNemar p") && table.stdout().contains("CR difference"), context(table));
        ProcessRunner.Result compared = cli(store, "runs", "compare", rulesId, replayId, "--json");
        JsonNode comparison = lastJsonLine(compared).get("comparison");
        JsonNode difference = comparison.get("differences").get(0);
        assertEquals(slice.size(), difference.get("shared_instances").asInt(), comparison.toString());
        // The paired difference is the two runs' own correct rates apart, on the same instances.
        double rulesCr = lastJsonLine(rules).at("/statistics/correct_rate/value").asDouble();
        double replayCr = lastJsonLine(replay).at("/statistics/correct_rate/value").asDouble();
        assertEquals(replayCr - rulesCr, difference.at("/correct_rate_difference/value").asDouble(), 1e-9, comparison.toString());
        int onlyRules = difference.get("only_baseline_passed").asInt();
        int onlyReplay = difference.get("only_other_passed").asInt();
        assertEquals(onlyRules - onlyReplay, Math.round((rulesCr - replayCr) * slice.size()), comparison.toString());

        Path html = Path.of(lastJsonLine(compared).get("report").asText());
        ChartsInBrowser.check(html, root.resolve("standalone/target/compare-report.png"));
    }

    /** Rewrites the run's stored outcomes the way a careless hand (or a bug) might; returns the attempts changed. */
    private static int tamper(Path store, String runId) throws Exception {
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().setDataDirectory(store.resolve("postgres").toFile())
                .setCleanDataDirectory(false).start();
             Connection connection = postgres.getPostgresDatabase().getConnection();
             PreparedStatement attempts = connection.prepareStatement("update bench_attempt set passed = not passed, "
                     + "proceeded = not proceeded, trace_similarity = 0, outcome_class = 'GRADER', state = 'FAILED' where run_id = ?");
             PreparedStatement run = connection.prepareStatement("update bench_run set passed = 999 where id = ?")) {
            attempts.setString(1, runId);
            run.setString(1, runId);
            run.executeUpdate();
            return attempts.executeUpdate();
        }
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
