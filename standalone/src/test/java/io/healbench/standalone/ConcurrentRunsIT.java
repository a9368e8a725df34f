package io.healbench.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Two standalone runs on one machine at once: each has its own embedded database and sandbox, but they draw session
 * uids from the same range and kill a session's uid when it ends. Both must complete with the outcomes of a run alone.
 */
class ConcurrentRunsIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void twoRunsAtOnceGetTheOutcomesOfARunAlone() throws Exception {
        Path root = ProcessRunner.repoRoot();
        List<String> slice = ProcessRunner.firstStdlibInstances(root, 10);

        Map<String, String> alone = outcomes(run(root, slice));
        CompletableFuture<ProcessRunner.Result> first = CompletableFuture.supplyAsync(() -> run(root, slice));
        CompletableFuture<ProcessRunner.Result> second = CompletableFuture.supplyAsync(() -> run(root, slice));

        assertEquals(alone, outcomes(first.join()), "the first of two concurrent runs");
        assertEquals(alone, outcomes(second.join()), "the second of two concurrent runs");
    }

    private static ProcessRunner.Result run(Path root, List<String> slice) {
        try {
            return ProcessRunner.run(ProcessRunner.standalone(root, "run", "--json", "--parallel", "2", "--instances", String.join(",", slice)),
                    Map.of("HEALBENCH_HOME", root.toString()), root, 900);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Instance id to what became of it, from the report the run's summary line names. */
    private static Map<String, String> outcomes(ProcessRunner.Result result) throws Exception {
        List<String> lines = result.stdoutLines();
        String context = "exit " + result.exitCode() + "\nstdout:\n" + result.stdout() + "\nstderr:\n" + result.stderr();
        assertEquals(0, result.exitCode(), context);
        JsonNode summary = JSON.readTree(lines.get(lines.size() - 1));
        assertEquals(0, summary.at("/failures/infrastructure").asInt(), context);
        JsonNode report = JSON.readTree(Path.of(summary.get("report").asText()).toFile());
        Map<String, String> outcomes = new TreeMap<>();
        for (JsonNode attempt : report.get("attempts")) {
            outcomes.put(attempt.get("instance_id").asText(), attempt.get("outcome_class").asText()
                    + " proceeded=" + attempt.get("proceeded").asBoolean() + " passed=" + attempt.get("passed").asBoolean()
                    + " heals=" + attempt.get("heals_applied").asInt() + "/" + attempt.get("heal_points").asInt());
        }
        assertEquals(10, outcomes.size(), context);
        return outcomes;
    }
}
