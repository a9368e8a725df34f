package io.healbench.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.healbench.analysis.ChartsInBrowser;
import io.healbench.cli.RunReportFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The main job as a user runs it: the packaged cli in standalone mode over a slice of the bundled
 * dataset, judged from its --json summary line and the report file it names.
 */
class StandaloneRunIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void standaloneRunHealsBundledInstancesAndWritesTheReport() throws Exception {
        Path root = ProcessRunner.repoRoot();
        // A slice of the injected CPython instances: the whole dataset (300+ instances) is too long for a test.
        List<String> slice = ProcessRunner.firstStdlibInstances(root, 16);
        int bundled = slice.size();
        ProcessRunner.Result result = ProcessRunner.run(
                ProcessRunner.standalone(root, "run", "--json", "--instances", String.join(",", slice), "--tier", "injected"),
                Map.of("HEALBENCH_HOME", root.toString()), root, 900);
        assertEquals(0, result.exitCode(), "stdout:\n" + result.stdout() + "\nstderr:\n" + result.stderr());

        List<String> lines = result.stdoutLines();
        assertTrue(lines.get(0).startsWith("slice: --instances (" + bundled + " ids) --tier injected: " + bundled + " of "), lines.get(0));
        JsonNode summary = JSON.readTree(lines.get(lines.size() - 1));
        assertEquals(bundled, summary.get("instances").asInt(), "every instance of the slice is run");
        assertTrue(summary.get("instances").asInt() >= 3, summary.toString());
        assertTrue(summary.get("proceeded").asInt() >= 1, "at least one crash is healed and resumes: " + summary);
        assertTrue(result.stdout().contains("INSTANCE"), "the results table is printed");
        assertTrue(result.stderr().contains("attempts"), "progress is shown on stderr");

        Path report = Path.of(summary.get("report").asText());
        assertTrue(Files.isRegularFile(report), report.toString());
        JsonNode written = JSON.readTree(report.toFile());
        assertEquals(RunReportFiles.REPORT_SCHEMA, written.get("schema").asText());
        assertEquals(summary.get("proceeded").asInt(), written.at("/summary/proceeded").asInt());
        assertEquals(summary.get("passed").asInt(), written.at("/summary/passed").asInt());
        assertEquals(bundled, written.get("attempts").size());
        long healed = 0;
        for (JsonNode attempt : written.get("attempts")) {
            assertTrue(Files.isRegularFile(report.getParent().resolve("instances")
                    .resolve(attempt.get("instance_id").asText()).resolve("report.json")));
            if (attempt.get("proceeded").asBoolean() && attempt.get("heals_applied").asInt() > 0) {
                healed++;
            }
        }
        assertTrue(healed >= 1, "a proceeded attempt went through at least one applied heal");

        // The run's HTML report, in a real browser: every chart is drawn (a missing one fails here).
        ChartsInBrowser.check(report.getParent().resolve("report.html"), root.resolve("standalone/target/main-job-report.png"));
    }

    @Test
    void badCommandLineGetsUsageAndExitCodeTwo() throws Exception {
        Path root = ProcessRunner.repoRoot();
        ProcessRunner.Result result = ProcessRunner.run(
                ProcessRunner.standalone(root, "run", "--repeats", "zero"),
                Map.of("HEALBENCH_HOME", root.toString()), root, 120);
        assertEquals(2, result.exitCode());
        assertTrue(result.stderr().contains("--repeats must be a whole number"), result.stderr());
    }
}
