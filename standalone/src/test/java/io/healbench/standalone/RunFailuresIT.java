package io.healbench.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.healbench.analysis.OutcomeClass;
import io.healbench.cli.ExitStatus;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The main job when the platform, not the agent, is at fault: it says so plainly and exits with its own status. */
class RunFailuresIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> SLICE = List.of("stdlib-gzip-typeerror-init", "stdlib-statistics-keyerror-sum");

    /**
     * A machine where nothing can be installed and bubblewrap is missing (the preflight's tool path is an empty
     * directory): the run stops before any attempt, naming bubblewrap and how to get it.
     */
    @Test
    void aMachineThatCannotBeReadiedStopsBeforeAnyAttemptWithExitStatusThree(@TempDir Path empty) throws Exception {
        Path root = ProcessRunner.repoRoot();
        ProcessRunner.Result result = ProcessRunner.run(ProcessRunner.standalone(root, "run", "--json", "--instances", SLICE.get(0)),
                Map.of("HEALBENCH_HOME", root.toString(), "HEALBENCH_TOOL_PATH", empty.toString(), "HEALBENCH_NO_INSTALL", "1"),
                root, 300);
        String context = "stdout:\n" + result.stdout() + "\nstderr:\n" + result.stderr();
        assertEquals(ExitStatus.NOT_READY, result.exitCode(), context);
        assertTrue(result.stderr().contains("bubblewrap") && result.stderr().contains("apt-get install bubblewrap"), context);
        assertTrue(result.stderr().contains("no attempt was started"), context);
        assertFalse(result.stderr().contains("attempts"), "no run was created, so no progress was shown: " + context);
        assertFalse(result.stdout().contains("\"run_id\""), context);
    }

    /**
     * The sandbox is pointed at a bubblewrap that does not exist, so every session is refused: the run still completes,
     * charges nothing to the agent, names the cause and exits with its own status.
     */
    @Test
    void attemptsTheSandboxCannotRunAreInfrastructureFailuresWithTheirOwnExitStatus() throws Exception {
        Path root = ProcessRunner.repoRoot();
        ProcessRunner.Result result = ProcessRunner.run(ProcessRunner.standalone(root, List.of("-Dhealbench.sandbox.bwrap=/nonexistent/bwrap"),
                        List.of("run", "--json", "--instances", String.join(",", SLICE))),
                Map.of("HEALBENCH_HOME", root.toString()), root, 600);
        String context = "stdout:\n" + result.stdout() + "\nstderr:\n" + result.stderr();

        assertEquals(ExitStatus.INFRASTRUCTURE_FAILURES, result.exitCode(), context);
        List<String> lines = result.stdoutLines();
        JsonNode summary = JSON.readTree(lines.get(lines.size() - 1));
        assertEquals(SLICE.size(), summary.at("/by_class/infrastructure").asInt(), context);
        assertEquals(0, summary.at("/by_class/agent error").asInt(), context);
        assertEquals(ExitStatus.INFRASTRUCTURE_FAILURES, summary.get("exit_code").asInt(), context);
        assertEquals("FAILED", summary.get("state").asText(), "no attempt could complete, so the run failed: " + context);
        assertEquals(SLICE.size(), summary.at("/statistics/infrastructure_ids").size(), "each one listed by id: " + context);
        assertTrue(result.stdout().contains("infrastructure " + SLICE.size()), context);
        assertTrue(result.stdout().contains("first infrastructure: ") && result.stdout().contains("/nonexistent/bwrap"),
                "the first reason names the cause: " + context);
        assertTrue(result.stdout().contains(SLICE.size() + " attempts failed for an infrastructure reason"), context);
        for (String id : SLICE) {
            assertTrue(lines.stream().anyMatch(line -> line.startsWith(id) && line.contains(OutcomeClass.INFRASTRUCTURE.label())),
                    "the table marks " + id + ": " + context);
        }
        JsonNode report = JSON.readTree(Path.of(summary.get("report").asText()).toFile());
        assertEquals(0, report.at("/summary/agent_attempts").asInt(), "infrastructure failures are out of the agent's rates");
    }
}
