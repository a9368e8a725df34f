package io.healbench.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.healbench.agent.llmstub.LlmStubServer;
import io.healbench.proto.agent.v1.ConnectRequest;
import io.healbench.proto.agent.v1.ConnectResponse;
import io.healbench.proto.agent.v1.GetCrashRequest;
import io.healbench.proto.agent.v1.HealRequest;
import io.healbench.proto.agent.v1.ListFilesRequest;
import io.healbench.proto.agent.v1.ProbeRequest;
import io.healbench.proto.agent.v1.ReadFileRequest;
import io.healbench.proto.agent.v1.ReraiseRequest;
import io.healbench.proto.agent.v1.Resume;
import io.healbench.proto.agent.v1.SearchCodeRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The external API in standalone mode, from the packaged cli: {@code healbench run --agent external} prints where
 * agents connect and waits for them; {@code healbench serve} serves with nothing to run. Our Python clients heal
 * through both protocols, and an agent doing over gRPC exactly what the internal toolloop did is seen alike by the
 * sandbox and the grader.
 */
class ExternalAgentStandaloneIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aStandaloneExternalRunPrintsItsEndpointAndThePythonGrpcClientHealsThroughIt() throws Exception {
        Path root = ProcessRunner.repoRoot();
        List<String> slice = ProcessRunner.firstStdlibInstances(root, 3);
        try (Cli run = Cli.start(root, Map.of(), "run", "--json", "--agent", "external", "--instances", String.join(",", slice))) {
            JsonNode endpoint = run.awaitJsonLineWith("token");
            assertTrue(endpoint.get("run").asText().startsWith("runs/"), endpoint.toString());
            assertEquals(endpoint.get("grpc").asText().replace("127.0.0.1:", "http://127.0.0.1:") + "/mcp",
                    endpoint.get("mcp").asText(), "MCP shares the gRPC port");
            // A wrong token opens nothing: the local token is the only key (tried first: the run ends once healed).
            ManagedChannel channel = ManagedChannelBuilder.forTarget(endpoint.get("grpc").asText()).usePlaintext().build();
            try (GatewayTestClient stranger = new GatewayTestClient(channel, "not-" + endpoint.get("token").asText())) {
                io.grpc.StatusRuntimeException refused = org.junit.jupiter.api.Assertions.assertThrows(
                        io.grpc.StatusRuntimeException.class, () -> stranger.claim(endpoint.get("run").asText()));
                assertEquals("TOKEN_INVALID", GatewayTestClient.reason(refused));
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
            ProcessRunner.Result client = ProcessRunner.run(List.of(ProcessRunner.clientPython(), "-m", "healbench_client",
                    "grpc", "--endpoint", endpoint.get("grpc").asText(), "--token", endpoint.get("token").asText(),
                    "--run", endpoint.get("run").asText(), "--json"), ProcessRunner.clientEnvironment(), root, 900);
            assertEquals(0, client.exitCode(), client.stdout() + client.stderr());
            assertEquals(0, run.awaitExit(), run.output());
            JsonNode summary = run.lastJsonLine();
            assertEquals(slice.size(), summary.get("attempts").asInt(), summary.toString());
            assertTrue(summary.get("proceeded").asInt() >= 1, "the client's heals let programs proceed: " + summary);
            JsonNode report = JSON.readTree(Path.of(summary.get("report").asText()).toFile());
            assertTrue(report.at("/summary/actions/heal").asInt() >= 3, "at least 3 heals were applied or tried: " + report);
        }
    }

    /** {@code healbench serve}: no run but the ones made against it, each with its token; MCP heals through it. */
    @Test
    void thePythonMcpClientListsTheToolsAndHealsThroughTheServedPlatform() throws Exception {
        Path root = ProcessRunner.repoRoot();
        List<String> slice = ProcessRunner.firstStdlibInstances(root, 2);
        try (Cli serve = Cli.start(root, Map.of(), "serve")) {
            JsonNode endpoint = serve.awaitJsonLineWith("token");
            // The served platform's run API takes only its token too, over gRPC and REST.
            ProcessRunner.Result stranger = ProcessRunner.run(ProcessRunner.standalone(root, "run", "--agent", "external",
                    "--instances", slice.get(0), "--server", endpoint.get("grpc").asText()),
                    Map.of("HEALBENCH_HOME", root.toString()), root, 300);
            assertEquals(1, stranger.exitCode(), stranger.stdout() + stranger.stderr());
            assertTrue(stranger.stderr().contains("UNAUTHENTICATED"), stranger.stderr());
            java.net.http.HttpResponse<String> rest = java.net.http.HttpClient.newHttpClient().send(
                    java.net.http.HttpRequest.newBuilder(java.net.URI.create(endpoint.get("mcp").asText()
                            .replace("/mcp", "/api/v1/runs/none"))).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(401, rest.statusCode(), rest.body());
            try (Cli run = Cli.start(root, Map.of(), "run", "--json", "--agent", "external", "--instances", String.join(",", slice),
                    "--server", endpoint.get("grpc").asText(), "--token", endpoint.get("token").asText())) {
                String runName = run.awaitJsonLineWith("run").get("run").asText();
                ProcessRunner.Result client = ProcessRunner.run(List.of(ProcessRunner.clientPython(), "-m", "healbench_client",
                        "mcp", "--url", endpoint.get("mcp").asText(), "--token", endpoint.get("token").asText(),
                        "--run", runName, "--list-tools", "--json"), ProcessRunner.clientEnvironment(), root, 900);
                assertEquals(0, client.exitCode(), client.stdout() + client.stderr());
                for (String tool : List.of("claim", "get_crash", "probe", "heal", "reraise", "read_file", "list_files",
                        "search_code", "report_usage")) {
                    assertTrue(client.stdout().contains(tool), "the MCP client listed " + tool + ": " + client.stdout());
                }
                assertEquals(0, run.awaitExit(), run.output());
                JsonNode summary = run.lastJsonLine();
                assertEquals(slice.size(), summary.get("attempts").asInt(), summary.toString());
                JsonNode report = JSON.readTree(Path.of(summary.get("report").asText()).toFile());
                assertTrue(report.at("/summary/actions/heal").asInt() >= 1, "healed through MCP: " + report);
            }
        }
    }

    /**
     * Parity: the toolloop agent runs one instance on the scripted backbone; then an agent sends exactly the same
     * actions over gRPC. The sandbox sees the same calls (its guard decisions are equal), the grader the same end,
     * and each look gets the same observation.
     */
    @Test
    void anAgentDoingOverGrpcWhatToolloopDidIsSeenAlike() throws Exception {
        Path root = ProcessRunner.repoRoot();
        String instance = ProcessRunner.firstStdlibInstances(root, 1).get(0);
        Path work = Files.createTempDirectory("healbench-parity");
        Path backbones = work.resolve("backbones.yaml");
        JsonNode internal;
        JsonNode internalTrajectory;
        try (LlmStubServer llm = StubBackbone.serve(root.resolve("scripts/llm-stub/toolloop-heal.yaml"))) {
            StubBackbone.write(backbones, "openai", llm.openAiBaseUrl(), "api_key_env: HEALBENCH_PARITY_UNUSED_KEY",
                    "api_key_required: false");
            ProcessRunner.Result toolloop = ProcessRunner.run(ProcessRunner.standalone(root, "run", "--json", "--instances", instance,
                    "--agent", "toolloop", "--backbone", "stub", "--backbones", backbones.toString()),
                    Map.of("HEALBENCH_HOME", root.toString()), root, 900);
            assertEquals(0, toolloop.exitCode(), toolloop.stdout() + toolloop.stderr());
            List<String> lines = toolloop.stdoutLines();
            Path dir = Path.of(JSON.readTree(lines.get(lines.size() - 1)).get("report").asText()).getParent()
                    .resolve("instances").resolve(instance);
            internal = JSON.readTree(dir.resolve("report.json").toFile());
            internalTrajectory = JSON.readTree(dir.resolve("trajectory.json").toFile());
        }
        List<JsonNode> calls = new ArrayList<>();
        List<String> lookObservations = new ArrayList<>();
        for (JsonNode step : internalTrajectory.get("steps")) {
            if (!step.has("tool_calls")) {
                continue;
            }
            for (JsonNode call : step.get("tool_calls")) {
                String observation = observation(step, call.get("tool_call_id").asText()).orElse("");
                if (observation.startsWith("not run:")) {
                    continue;  // toolloop ran only a reply's actions up to its first heal or reraise
                }
                calls.add(call);
                if (!List.of("heal", "reraise").contains(call.get("function_name").asText())) {
                    lookObservations.add(observation);
                }
            }
        }
        assertTrue(calls.stream().anyMatch(c -> c.get("function_name").asText().equals("heal")), "toolloop healed: " + calls);

        JsonNode external;
        JsonNode externalTrajectory;
        try (Cli run = Cli.start(root, Map.of(), "run", "--json", "--agent", "external", "--instances", instance)) {
            JsonNode endpoint = run.awaitJsonLineWith("token");
            ManagedChannel channel = ManagedChannelBuilder.forTarget(endpoint.get("grpc").asText()).usePlaintext().build();
            try (GatewayTestClient agent = new GatewayTestClient(channel, endpoint.get("token").asText())) {
                assertTrue(agent.claim(endpoint.get("run").asText()).getClaim().getStep().hasCrash());
                for (JsonNode call : calls) {
                    ConnectResponse response = agent.call(request(call));
                    boolean finished = response.hasHeal() && response.getHeal().getStep().hasFinished()
                            || response.hasReraise() && response.getReraise().getStep().hasFinished();
                    if (finished) {
                        break;
                    }
                }
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
            assertEquals(0, run.awaitExit(), run.output());
            Path dir = Path.of(run.lastJsonLine().get("report").asText()).getParent().resolve("instances").resolve(instance);
            external = JSON.readTree(dir.resolve("report.json").toFile());
            externalTrajectory = JSON.readTree(dir.resolve("trajectory.json").toFile());
        }
        for (String field : List.of("proceeded", "passed", "heal_points", "heals_applied", "heals_rejected", "exit_cause",
                "guard_decisions")) {
            assertEquals(internal.get(field), external.get(field), field);
        }
        List<String> externalLooks = new ArrayList<>();
        for (JsonNode step : externalTrajectory.get("steps")) {
            for (JsonNode call : step.path("tool_calls")) {
                if (!List.of("heal", "reraise").contains(call.get("function_name").asText())) {
                    externalLooks.add(observation(step, call.get("tool_call_id").asText()).orElse(""));
                }
            }
        }
        assertEquals(lookObservations, externalLooks, "every look got the same observation");
    }

    private static Optional<String> observation(JsonNode step, String callId) {
        for (JsonNode result : step.path("observation").path("results")) {
            if (result.get("source_call_id").asText().equals(callId)) {
                return Optional.of(result.get("content").asText());
            }
        }
        return Optional.empty();
    }

    /** A toolloop tool call as the gateway's typed request. */
    private static ConnectRequest.Builder request(JsonNode call) {
        JsonNode a = call.get("arguments");
        ConnectRequest.Builder out = ConnectRequest.newBuilder();
        switch (call.get("function_name").asText()) {
            case "get_crash" -> out.setGetCrash(GetCrashRequest.getDefaultInstance());
            case "probe" -> out.setProbe(ProbeRequest.newBuilder().setCode(a.get("code").asText())
                    .setTimeoutSeconds(a.path("timeout_s").asDouble(0)));
            case "heal" -> out.setHeal(HealRequest.newBuilder().setCode(a.get("code").asText())
                    .setResume(Resume.valueOf("RESUME_" + a.get("resume").asText().toUpperCase(Locale.ROOT))));
            case "reraise" -> out.setReraise(ReraiseRequest.newBuilder().setReason(a.get("reason").asText()));
            case "read_file" -> out.setReadFile(ReadFileRequest.newBuilder().setPath(a.get("path").asText())
                    .setStart(a.path("start").asInt(0)).setEnd(a.path("end").asInt(0)));
            case "list_files" -> out.setListFiles(ListFilesRequest.newBuilder().setPath(a.path("path").asText(""))
                    .setGlob(a.path("glob").asText("")));
            case "search_code" -> out.setSearchCode(SearchCodeRequest.newBuilder().setPattern(a.get("pattern").asText())
                    .setGlob(a.path("glob").asText("")));
            default -> throw new AssertionError("unknown tool in the trajectory: " + call);
        }
        return out;
    }

    /** The packaged cli as a long-running process whose output is read while it runs. */
    private static final class Cli implements AutoCloseable {
        private final Process process;
        private final Path out;

        private Cli(Process process, Path out) {
            this.process = process;
            this.out = out;
        }

        static Cli start(Path root, Map<String, String> env, String... arguments) throws IOException {
            Path out = Files.createTempFile("healbench-cli", ".out");
            ProcessBuilder builder = new ProcessBuilder(ProcessRunner.standalone(root, arguments)).directory(root.toFile())
                    .redirectOutput(out.toFile()).redirectErrorStream(true);
            builder.environment().put("HEALBENCH_HOME", root.toString());
            builder.environment().putAll(env);
            return new Cli(builder.start(), out);
        }

        /** The first line of output that is a JSON object with {@code field}, waiting up to 5 minutes for it. */
        JsonNode awaitJsonLineWith(String field) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            while (System.nanoTime() < deadline) {
                for (String line : Files.readAllLines(out)) {
                    if (line.startsWith("{") && line.contains("\"" + field + "\"")) {
                        return JSON.readTree(line);
                    }
                }
                if (!process.isAlive()) {
                    throw new AssertionError("the cli ended before printing " + field + ":\n" + output());
                }
                Thread.sleep(500);
            }
            throw new AssertionError("the cli printed no " + field + " within 5 minutes:\n" + output());
        }

        int awaitExit() throws Exception {
            if (!process.waitFor(15, TimeUnit.MINUTES)) {
                throw new AssertionError("the cli did not end:\n" + output());
            }
            return process.exitValue();
        }

        JsonNode lastJsonLine() throws IOException {
            List<String> lines = Files.readAllLines(out);
            for (int i = lines.size() - 1; i >= 0; i--) {
                if (lines.get(i).startsWith("{") && lines.get(i).contains("\"report\"")) {
                    return JSON.readTree(lines.get(i));
                }
            }
            throw new AssertionError("no summary line:\n" + output());
        }

        String output() throws IOException {
            return Files.readString(out);
        }

        @Override
        public void close() {
            process.destroy();
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
    }
}
