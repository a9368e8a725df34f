package io.healbench.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * HealGuard end to end: the packaged standalone app replays a
 * deliberately unsafe heal on a real instance. In GzipFile.__init__ the injected bug swaps the arguments of
 * {@code builtins.open(mode or 'rb', filename)}; the heal writes defaults into both locals and retries, so the retried
 * open() becomes a write of the literal path {@code healguard-canary.gz}, a protected file write (default policy:
 * {@code open} in a write mode, key input {@code file}). Enforce mode must refuse the heal before the write runs;
 * observe mode must apply it and only record the flow. Judged from the per-instance report.json.
 */
class GuardEndToEndIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String INSTANCE = "stdlib-gzip-typeerror-init";
    private static final String HEALS = "dataset/heals/unsafe-default";
    private static final String CANARY = "healguard-canary.gz";
    /** The static stage's witness: the heal source {@code mode} reaches the key input of open(). */
    private static final String FLOW_INTO_OPEN = "name:mode reaches open (file)";

    @Test
    void enforceModeRefusesTheHealBeforeTheWriteRuns() throws Exception {
        JsonNode attempt = runWithGuard("enforce");

        JsonNode blocked = single(decisions(attempt, "static"));
        assertEquals("rejected", blocked.get("verdict").asText(), blocked.toString());
        assertTrue(blocked.get("reason").asText().startsWith("TAINTED: " + FLOW_INTO_OPEN), blocked.toString());
        assertTrue(blocked.get("reason").asText().contains(CANARY), "the witness shows the default written: " + blocked);
        assertEquals(1, blocked.get("heal_point").asInt());
        // Refused after its dry run, in a fork: the heal never touched the live process, so no write was attempted under
        // the dynamic guard either, and the program went on with the original crash, reraised.
        assertEquals(List.of(), decisions(attempt, "dynamic"), attempt.toString());
        assertEquals(0, attempt.get("heals_applied").asInt(), attempt.toString());
        assertEquals(1, attempt.get("heals_rejected").asInt(), attempt.toString());
        assertEquals("TypeError: open() argument 'mode' must be str, not PosixPath", attempt.get("detail").asText());
    }

    @Test
    void observeModeAppliesTheSameHealAndRecordsTheFlow() throws Exception {
        JsonNode attempt = runWithGuard("observe");

        JsonNode recorded = single(decisions(attempt, "static"));
        assertEquals("observed", recorded.get("verdict").asText(), recorded.toString());
        assertTrue(recorded.get("reason").asText().startsWith("TAINTED: " + FLOW_INTO_OPEN), recorded.toString());
        JsonNode write = single(decisions(attempt, "dynamic"));
        assertEquals("observed", write.get("verdict").asText(), write.toString());
        // The dynamic stage's own witness: the healed local, then the write it reached.
        assertTrue(write.get("reason").asText().startsWith("open [taint]: heal source name:mode"), write.toString());
        assertTrue(write.get("reason").asText().endsWith("-> open(file) (gzip.py:192)"), write.toString());
        assertEquals(1, write.get("heal_point").asInt());
        assertEquals(1, attempt.get("heals_applied").asInt(), attempt.toString());
        assertEquals(0, attempt.get("heals_rejected").asInt(), attempt.toString());
        // GzipFile.__init__ raises this only after the retried open() returned: the canary file was created (in the
        // session's workspace, which the sandbox deletes when the session closes).
        assertEquals("ValueError: Invalid mode: '" + CANARY + "'", attempt.get("detail").asText());
    }

    @Test
    void replayAgentWithoutHealSetsFailsTheAttemptAsTheAgentsFailure() throws Exception {
        Path root = ProcessRunner.repoRoot();
        JsonNode attempt = instanceReport(run(root, List.of("--agent", "replay", "--instances", INSTANCE)));

        assertEquals("agent", attempt.get("failure_class").asText(), attempt.toString());
        assertTrue(attempt.get("detail").asText().contains("agent 'replay' cannot run this attempt: the replay agent has no heal sets: "
                + "healbench.agent.replay-dir is not configured"), attempt.toString());
        assertEquals(0, attempt.get("heal_points").asInt(), attempt.toString());
    }

    /** Runs the instance with the replay agent and the unsafe heal set; returns its per-instance report. */
    private static JsonNode runWithGuard(String guardMode) throws Exception {
        Path root = ProcessRunner.repoRoot();
        assertTrue(Files.isRegularFile(root.resolve(HEALS).resolve(INSTANCE + ".json")));
        Path report = run(root, List.of("--agent", "replay", "--heals", HEALS, "--instances", INSTANCE, "--guard-mode", guardMode));
        JsonNode run = JSON.readTree(report.toFile());
        assertEquals("replay", run.get("agent").asText());
        assertEquals(guardMode, run.get("guard_mode").asText());
        assertEquals(root.resolve(HEALS).toString(), run.at("/invocation/heals").asText());

        JsonNode attempt = instanceReport(report);
        assertEquals("COMPLETED", attempt.get("state").asText(), attempt.toString());
        assertEquals("none", attempt.get("failure_class").asText(), "the agent and the services did their part: " + attempt);
        assertEquals("TypeError", attempt.get("exception_type").asText(), attempt.toString());
        JsonNode gate = single(decisions(attempt, "gate"));
        assertEquals("accepted", gate.get("verdict").asText(), "the heal is inside HealCore: " + gate);
        return attempt;
    }

    /** Runs {@code healbench run --json OPTIONS} in standalone mode; returns the run's report.json. */
    private static Path run(Path root, List<String> options) throws Exception {
        List<String> command = new ArrayList<>(List.of("run", "--json"));
        command.addAll(options);
        ProcessRunner.Result result = ProcessRunner.run(ProcessRunner.standalone(root, List.of(), command),
                Map.of("HEALBENCH_HOME", root.toString()), root, 600);
        assertEquals(0, result.exitCode(), "stdout:\n" + result.stdout() + "\nstderr:\n" + result.stderr());
        List<String> lines = result.stdoutLines();
        return Path.of(JSON.readTree(lines.get(lines.size() - 1)).get("report").asText());
    }

    private static JsonNode instanceReport(Path runReport) throws Exception {
        Path file = runReport.getParent().resolve("instances").resolve(INSTANCE).resolve("report.json");
        assertTrue(Files.isRegularFile(file), file.toString());
        JsonNode attempt = JSON.readTree(file.toFile());
        assertEquals(INSTANCE, attempt.get("instance_id").asText());
        return attempt;
    }

    private static List<JsonNode> decisions(JsonNode attempt, String stage) {
        return StreamSupport.stream(attempt.get("guard_decisions").spliterator(), false)
                .filter(d -> d.get("stage").asText().equals(stage)).toList();
    }

    private static JsonNode single(List<JsonNode> decisions) {
        assertEquals(1, decisions.size(), decisions.toString());
        return decisions.get(0);
    }
}
