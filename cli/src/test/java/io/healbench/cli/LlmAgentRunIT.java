package io.healbench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.healbench.agent.llmstub.LlmStubScript;
import io.healbench.agent.llmstub.LlmStubServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The toolloop agent end to end: the packaged cli in standalone mode, the real LangChain4j OpenAI client talking
 * HTTP to the scripted provider server, real sandboxed crashes. The run is recorded on a cassette, the server is
 * stopped, and the replay must give the same heals, outcomes and trajectories; the API key must appear nowhere.
 */
class LlmAgentRunIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SECRET = "sk-healbench-secret-4711";

    @Test
    void toolloopHealsRealCrashesAndItsCassetteReplaysTheRunWithNoServer() throws Exception {
        Path root = ProcessRunner.repoRoot();
        List<String> slice = ProcessRunner.firstStdlibInstances(root, 8);
        Path work = Files.createTempDirectory("healbench-llm-it");
        Path cassette = work.resolve("cassette");
        Path backbones = work.resolve("backbones.yaml");
        JsonNode recorded;
        try (LlmStubServer server = LlmStubServer.start(
                LlmStubScript.load(root.resolve("scripts/llm-stub/toolloop-heal.yaml")), "127.0.0.1", 0, null)) {
            Files.writeString(backbones, """
                    backbones:
                      stub:
                        provider: openai
                        model: stub-model
                        base_url: %s
                        api_key_env: HEALBENCH_IT_KEY
                        max_output_tokens: 512
                        max_retries: 0
                        prices: {input: 1.0, output: 4.0}
                    """.formatted(server.openAiBaseUrl()));
            recorded = run(root, slice, backbones, cassette, true);
            assertTrue(server.requestsServed() > 0);
            server.requestBodies().forEach(body -> assertFalse(body.contains(SECRET)));
        }
        assertTrue(recorded.get("proceeded").asInt() >= 5, "at least 5 crashes healed and resumed: " + recorded);
        assertTrue(recorded.get("llm_calls").asInt() > 0 && recorded.get("input_tokens").asLong() > 0
                && recorded.get("cost_usd").asDouble() > 0, recorded.toString());

        // The server is gone: the replay can only answer from the cassette.
        JsonNode replayed = run(root, slice, backbones, cassette, false);
        for (String field : List.of("proceeded", "passed", "llm_calls", "input_tokens", "output_tokens")) {
            assertEquals(recorded.get(field), replayed.get(field), field);
        }
        // The run's cost is summed in the order attempts end, which parallel attempts do not fix: equal up to rounding.
        assertEquals(recorded.get("cost_usd").asDouble(), replayed.get("cost_usd").asDouble(), 1e-9);
        Path first = Path.of(recorded.get("report").asText()).getParent();
        Path second = Path.of(replayed.get("report").asText()).getParent();
        for (String id : slice) {
            JsonNode a = JSON.readTree(first.resolve("instances").resolve(id).resolve("report.json").toFile());
            JsonNode b = JSON.readTree(second.resolve("instances").resolve(id).resolve("report.json").toFile());
            for (String field : List.of("proceeded", "passed", "heals_applied", "heals_rejected", "exit_cause", "usage")) {
                assertEquals(a.get(field), b.get(field), id + " " + field);
            }
            JsonNode trajectory = JSON.readTree(first.resolve("instances").resolve(id).resolve("trajectory.json").toFile());
            assertEquals("ATIF-v1.4", trajectory.get("schema_version").asText());
            assertTrue(trajectory.at("/final_metrics/total_prompt_tokens").asLong() > 0, id);
            assertEquals(stable(trajectory),
                    stable(JSON.readTree(second.resolve("instances").resolve(id).resolve("trajectory.json").toFile())), id);
        }

        // The key was in the agent's environment; it is in no report, trajectory, cassette or log.
        List<Path> written = new ArrayList<>();
        for (Path dir : List.of(first, second, cassette, root.resolve("runs").resolve("healbench.log"))) {
            if (Files.exists(dir)) {
                try (Stream<Path> files = Files.walk(dir)) {
                    files.filter(Files::isRegularFile).forEach(written::add);
                }
            }
        }
        assertTrue(written.stream().anyMatch(p -> p.toString().endsWith(".jsonl")), "the cassette was written");
        for (Path file : written) {
            assertFalse(Files.readString(file).contains(SECRET), "the API key leaked into " + file);
        }
    }

    private static JsonNode run(Path root, List<String> slice, Path backbones, Path cassette, boolean record)
            throws Exception {
        List<String> command = new ArrayList<>(List.of("java", "-jar",
                root.resolve("cli/target/quarkus-app/quarkus-run.jar").toString(), "run", "--json",
                "--instances", String.join(",", slice), "--agent", "toolloop", "--backbone", "stub",
                "--backbones", backbones.toString(), "--llm-cassette", cassette.toString()));
        if (record) {
            command.add("--record");
        }
        ProcessRunner.Result result = ProcessRunner.run(command,
                Map.of("HEALBENCH_HOME", root.toString(), "HEALBENCH_IT_KEY", SECRET), root, 900);
        assertEquals(0, result.exitCode(), "stdout:\n" + result.stdout() + "\nstderr:\n" + result.stderr());
        assertFalse(result.stdout().contains(SECRET) || result.stderr().contains(SECRET), "the key was printed");
        List<String> lines = result.stdoutLines();
        return JSON.readTree(lines.get(lines.size() - 1));
    }

    /**
     * A trajectory without what may differ between a run and its replay: timestamps, latencies, the attempt id, and
     * CPython object addresses in reprs (masked as the cassette's key masks them).
     */
    private static JsonNode stable(JsonNode trajectory) throws Exception {
        ObjectNode copy = (ObjectNode) JSON.readTree(JSON.writeValueAsString(trajectory).replaceAll("0x[0-9a-fA-F]{6,}", "0x?"));
        copy.remove("session_id");
        for (JsonNode step : copy.get("steps")) {
            ((ObjectNode) step).remove("timestamp");
            if (step.has("extra")) {
                ((ObjectNode) step.get("extra")).remove("latency_ms");
            }
        }
        return copy;
    }
}
