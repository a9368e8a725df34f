package io.healbench.standalone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.healbench.agent.llmstub.LlmStubServer;
import io.healbench.cli.ExitStatus;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The LLM agents end to end: the packaged cli in standalone mode, the real LangChain4j clients (OpenAI and
 * Anthropic) talking HTTP to the scripted provider server, real sandboxed crashes. toolloop's run is recorded on a
 * cassette and replayed with the server stopped; healer and mini heal too; each budget ends what it limits; the API
 * key appears nowhere; an agent that goes after the answer key gets nothing.
 */
class LlmAgentRunIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SECRET = "sk-healbench-secret-4711";

    /** What a test run gives: the --json summary line and the run's directory. */
    private record Run(JsonNode summary, Path dir) {
        JsonNode instance(String id, String file) throws IOException {
            return JSON.readTree(dir.resolve("instances").resolve(id).resolve(file).toFile());
        }
    }

    @Test
    void toolloopHealsRealCrashesAndItsCassetteReplaysTheRunWithNoServer() throws Exception {
        Path root = ProcessRunner.repoRoot();
        List<String> slice = ProcessRunner.firstStdlibInstances(root, 8);
        Path work = Files.createTempDirectory("healbench-llm-it");
        Path cassette = work.resolve("cassette");
        Path backbones = work.resolve("backbones.yaml");
        Run recorded;
        try (LlmStubServer server = StubBackbone.serve(root.resolve("scripts/llm-stub/toolloop-heal.yaml"))) {
            StubBackbone.write(backbones, "openai", server.openAiBaseUrl(), "api_key_env: HEALBENCH_IT_KEY",
                    "prices: {input: 1.0, output: 4.0}");
            recorded = run(root, "toolloop", slice, backbones, "--llm-cassette", cassette.toString(), "--record");
            assertTrue(server.requestsServed() > 0);
            server.requestBodies().forEach(body -> assertFalse(body.contains(SECRET)));
        }
        assertTrue(recorded.summary.get("proceeded").asInt() >= 5, "at least 5 crashes healed and resumed: " + recorded.summary);
        assertTrue(recorded.summary.get("llm_calls").asInt() > 0 && recorded.summary.get("input_tokens").asLong() > 0
                && recorded.summary.get("cost_usd").asDouble() > 0, recorded.summary.toString());

        // The server is gone: the replay can only answer from the cassette.
        Run replayed = run(root, "toolloop", slice, backbones, "--llm-cassette", cassette.toString());
        for (String field : List.of("proceeded", "passed", "llm_calls", "input_tokens", "output_tokens")) {
            assertEquals(recorded.summary.get(field), replayed.summary.get(field), field);
        }
        // The run's cost is summed in the order attempts end, which parallel attempts do not fix: equal up to rounding.
        assertEquals(recorded.summary.get("cost_usd").asDouble(), replayed.summary.get("cost_usd").asDouble(), 1e-9);
        for (String id : slice) {
            JsonNode a = recorded.instance(id, "report.json");
            JsonNode b = replayed.instance(id, "report.json");
            for (String field : List.of("proceeded", "passed", "heals_applied", "heals_rejected", "exit_cause", "usage")) {
                assertEquals(a.get(field), b.get(field), id + " " + field);
            }
            JsonNode trajectory = recorded.instance(id, "trajectory.json");
            assertEquals("ATIF-v1.4", trajectory.get("schema_version").asText());
            assertTrue(trajectory.at("/final_metrics/total_prompt_tokens").asLong() > 0, id);
            assertEquals(stable(trajectory), stable(replayed.instance(id, "trajectory.json")), id);
        }

        // The key was in the agent's environment; it is in no report, trajectory, cassette or log.
        List<Path> written = filesUnder(recorded.dir, replayed.dir, cassette, root.resolve("runs").resolve("healbench.log"));
        assertTrue(written.stream().anyMatch(p -> p.toString().endsWith(".jsonl")), "the cassette was written");
        for (Path file : written) {
            assertFalse(Files.readString(file).contains(SECRET), "the API key leaked into " + file);
        }
    }

    /**
     * The single-shot healer (one fenced heal per crash, over the OpenAI protocol) and mini (a fenced probe, then a
     * fenced heal, over the Anthropic protocol) each heal real crashes.
     */
    @Test
    void healerAndMiniHealRealCrashesOverTheOpenAiAndAnthropicProtocols() throws Exception {
        Path root = ProcessRunner.repoRoot();
        List<String> slice = ProcessRunner.firstStdlibInstances(root, 5);
        Path backbones = Files.createTempDirectory("healbench-llm-it").resolve("backbones.yaml");

        try (LlmStubServer server = StubBackbone.serve(root.resolve("scripts/llm-stub/healer-heal.yaml"))) {
            StubBackbone.write(backbones, "openai", server.openAiBaseUrl(), "api_key_env: HEALBENCH_IT_KEY",
                    "prices: {input: 1.0, output: 4.0}");
            Run healer = run(root, "healer", slice, backbones);
            assertTrue(healer.summary.get("proceeded").asInt() >= 3, "the healer healed at least 3: " + healer.summary);
            for (String id : slice) {
                JsonNode usage = healer.instance(id, "report.json").get("usage");
                // Single shot: one call and one heal or reraise per heal point, never a probe or a look at the code.
                assertEquals(usage.get("heal_point_exits").size(), usage.get("llm_calls").asInt(), id + " " + usage);
                assertEquals(0, usage.get("probes").asInt() + usage.get("explores").asInt(), id + " " + usage);
            }
            assertTrue(server.requestBodies().stream().allMatch(body -> body.contains("\"messages\"")
                    && !body.contains("\"tools\"")), "the healer offers no tools, over chat completions");
        }

        try (LlmStubServer server = StubBackbone.serve(root.resolve("scripts/llm-stub/mini-heal.yaml"))) {
            StubBackbone.write(backbones, "anthropic", server.anthropicBaseUrl(), "api_key_env: HEALBENCH_IT_KEY",
                    "prices: {input: 3.0, output: 15.0}");
            Run mini = run(root, "mini", slice, backbones);
            assertTrue(mini.summary.get("proceeded").asInt() >= 3, "mini healed at least 3: " + mini.summary);
            int probes = 0;
            for (String id : slice) {
                JsonNode usage = mini.instance(id, "report.json").get("usage");
                probes += usage.get("probes").asInt();
                JsonNode trajectory = mini.instance(id, "trajectory.json");
                assertTrue(trajectory.at("/final_metrics/total_cost_usd").asDouble() > 0, id);
            }
            assertTrue(probes >= 3, "mini probed before it healed");
            // Anthropic's messages protocol: a top-level system text and max_tokens, which its API demands.
            Pattern maxTokens = Pattern.compile("\"max_tokens\"\\s*:\\s*512\\b");
            assertTrue(server.requestBodies().stream().allMatch(body -> body.contains("\"system\"")
                    && maxTokens.matcher(body).find()), "every request was an Anthropic messages request");
        }
    }

    /** A model that never heals stops at the call limit, reraises, and says why; over Anthropic's tool calls. */
    @Test
    void aModelThatNeverHealsStopsAtTheCallLimitAndReraises() throws Exception {
        Path root = ProcessRunner.repoRoot();
        List<String> slice = ProcessRunner.firstStdlibInstances(root, 2);
        Path backbones = Files.createTempDirectory("healbench-llm-it").resolve("backbones.yaml");
        try (LlmStubServer server = StubBackbone.serve(root.resolve("scripts/llm-stub/never-heals.yaml"))) {
            StubBackbone.write(backbones, "anthropic", server.anthropicBaseUrl(), "api_key_env: HEALBENCH_IT_KEY",
                    "prices: {input: 1.0, output: 4.0}");
            Run run = run(root, "toolloop", slice, backbones, "--limits", "calls=3");
            assertEquals(3 * slice.size(), server.requestsServed(), "exactly the allowed calls reached the model");
            assertEquals(0, run.summary.get("proceeded").asInt(), run.summary.toString());
            for (String id : slice) {
                JsonNode usage = run.instance(id, "report.json").get("usage");
                assertEquals(3, usage.get("llm_calls").asInt(), id + " " + usage);
                assertEquals(3, usage.get("probes").asInt(), id + " " + usage);
                assertEquals(0, usage.get("heals").asInt(), id + " " + usage);
                // Any later heal point of the run finds the attempt's calls spent and stops at once, as the first did.
                assertTrue(texts(usage.get("heal_point_exits")).stream().allMatch("limits_exceeded"::equals), id + " " + usage);
                JsonNode healPoint = run.instance(id, "trajectory.json").at("/extra/heal_points/0");
                assertEquals("limits_exceeded", healPoint.get("exit_status").asText());
                assertTrue(healPoint.get("reason").asText().contains("3 model calls are used"), healPoint.toString());
            }
        }
    }

    /** Three malformed replies in a row end the heal point with format_errors; each billed call still counts. */
    @Test
    void threeMalformedRepliesInARowEndWithFormatErrors() throws Exception {
        Path root = ProcessRunner.repoRoot();
        List<String> slice = ProcessRunner.firstStdlibInstances(root, 1);
        Path backbones = Files.createTempDirectory("healbench-llm-it").resolve("backbones.yaml");
        try (LlmStubServer server = StubBackbone.serve(root.resolve("scripts/llm-stub/malformed.yaml"))) {
            StubBackbone.write(backbones, "openai", server.openAiBaseUrl(), "api_key_env: HEALBENCH_IT_KEY",
                    "prices: {input: 1.0, output: 4.0}");
            Run run = run(root, "mini", slice, backbones);
            JsonNode usage = run.instance(slice.get(0), "report.json").get("usage");
            List<String> exits = texts(usage.get("heal_point_exits"));
            assertFalse(exits.isEmpty(), usage.toString());
            assertTrue(exits.stream().allMatch("format_errors"::equals), usage.toString());
            // Three calls per heal point, each billed and counted, and then no more.
            assertEquals(3 * exits.size(), usage.get("llm_calls").asInt(), usage.toString());
            assertEquals(3 * exits.size(), server.requestsServed());
            assertEquals(3 * exits.size(), usage.get("format_errors").asInt(), usage.toString());
            assertTrue(usage.get("cost_usd").asDouble() > 0, "malformed replies are paid for: " + usage);
            assertEquals(0, usage.get("heals").asInt() + usage.get("reraises").asInt(), usage.toString());
        }
    }

    /**
     * The run's cost cap stops the run before it overspends: one attempt at a time, each call dear, the cap reached
     * within the first attempts; later calls are never made and the run's spend stays under the cap. (Attempts at once
     * sharing the cap, and the bound on a call's input, are BudgetTest's.)
     */
    @Test
    void theRunCostCapStopsTheRunBeforeItOverspends() throws Exception {
        Path root = ProcessRunner.repoRoot();
        List<String> slice = ProcessRunner.firstStdlibInstances(root, 3);
        Path backbones = Files.createTempDirectory("healbench-llm-it").resolve("backbones.yaml");
        double cap = 0.1;
        try (LlmStubServer server = StubBackbone.serve(root.resolve("scripts/llm-stub/never-heals.yaml"))) {
            // About 3,000 input tokens a call at $5 per million: some $0.015 a call, so 12 calls would cost about $0.2.
            // An attempt's first call is bounded at a token per byte of all it sends (some $0.06), so a later
            // attempt finds no room left for it.
            StubBackbone.write(backbones, "openai", server.openAiBaseUrl(), "api_key_env: HEALBENCH_IT_KEY",
                    "prices: {input: 5.0, output: 5.0}");
            Run run = run(root, "toolloop", slice, backbones, "--parallel", "1", "--limits", "calls=4",
                    "--run-cost-limit", String.valueOf(cap));
            double spent = run.summary.get("cost_usd").asDouble();
            assertTrue(spent > 0 && spent <= cap, "the run spent " + spent + " under a cap of " + cap);
            assertTrue(server.requestsServed() < 4 * slice.size(),
                    "without the cap the run makes " + 4 * slice.size() + " calls; it made " + server.requestsServed());
            boolean stoppedByTheCap = false;
            int attemptsWithoutACall = 0;
            for (String id : slice) {
                JsonNode report = run.instance(id, "report.json");
                JsonNode usage = report.get("usage");
                attemptsWithoutACall += usage.get("llm_calls").asInt() == 0 ? 1 : 0;
                Path trajectory = run.dir.resolve("instances").resolve(id).resolve("trajectory.json");
                if (Files.exists(trajectory)) {
                    for (JsonNode point : JSON.readTree(trajectory.toFile()).at("/extra/heal_points")) {
                        stoppedByTheCap |= point.get("exit_status").asText().equals("limits_exceeded")
                                && point.get("reason").asText().contains("the run's cost limit");
                    }
                }
            }
            assertTrue(stoppedByTheCap, "a heal point ended at the run's cost limit");
            assertTrue(attemptsWithoutACall >= 1, "an attempt made no call at all");
        }
    }

    /** A cost limit on an unpriced backbone is refused before anything starts: no run, no model call. */
    @Test
    void aCostLimitOnAnUnpricedBackboneIsRefusedUpFront() throws Exception {
        Path root = ProcessRunner.repoRoot();
        List<String> slice = ProcessRunner.firstStdlibInstances(root, 1);
        try (LlmStubServer server = StubBackbone.serve(root.resolve("scripts/llm-stub/reraise.yaml"))) {
            String adHoc = "openai:stub-model@" + server.openAiBaseUrl();
            for (List<String> limit : List.of(List.of("--limits", "cost_usd=0.5"), List.of("--run-cost-limit", "2"))) {
                List<String> arguments = new ArrayList<>(List.of("--instances", slice.get(0), "--agent", "toolloop",
                        "--backbone", adHoc));
                arguments.addAll(limit);
                ProcessRunner.Result result = runCli(root, arguments);
                assertEquals(ExitStatus.USAGE, result.exitCode(), limit + ": " + result.stderr());
                assertTrue(result.stderr().contains("has no prices, so a cost limit cannot hold"), result.stderr());
                assertFalse(result.stdout().contains("\"run_id\""), "no run was made: " + result.stdout());
            }
            assertEquals(0, server.requestsServed(), "no model call was made");
        }
    }

    /**
     * An agent that goes after the answer key through probe and read_file gets nothing: the instance's fix patch
     * and the host's reference-run cache are out of the session's view, by absolute path, by a path climbing out
     * of the sources, by listing and by search.
     */
    @Test
    void anAgentHuntingTheAnswerKeyThroughProbesAndReadsGetsNothing() throws Exception {
        Path root = ProcessRunner.repoRoot();
        String id = "cpython3117-argparse-bpo-14074";
        Path fix = root.resolve("dataset/instances").resolve(id).resolve("fix.patch");
        Path referenceCache = root.resolve(".cache/reference");
        List<String> fixLines = Files.readAllLines(fix).stream()
                .filter(l -> l.startsWith("+") && !l.startsWith("+++")).map(l -> l.substring(1).strip())
                .filter(l -> l.length() >= 12).toList();
        assertFalse(fixLines.isEmpty(), "the fix patch adds lines to look for");
        String searched = fixLines.get(0);
        // The controls: the program's own test file, which the walk must see, and the buggy line the fix replaces,
        // which read_file and search_code must show (the agents' views hold the project's sources, argparse.py).
        String ownTest = "test_bpo_14074.py";
        String ownLine = "metavar, = self._metavar_formatter(action, default)(1)";

        Path work = Files.createTempDirectory("healbench-llm-it");
        Path script = work.resolve("answer-key.yaml");
        // The probe tries the answer key by its host paths, then walks the whole view for anything named like it
        // (REFERENCE cache entries carry the instance id); finding the program's own test file shows the walk works.
        // The view holds about 300,000 entries (the system, the interpreter with its site-packages), half of them
        // the system's /usr. A probe has 20 s, and a cold walk on a loaded machine once took longer: so the walk is
        // two probes, everything but /usr and then /usr, each testing a directory's names at once, and the host's
        // /usr is walked once beforehand so that the sandbox's walk finds it in the kernel's caches.
        String walk = """
                wanted = ('fix.patch', 'instance.yaml', 'healbench.log', %s, %s)
                for top, dirs, files in os.walk(%s):
                    if top == '/':
                        dirs[:] = [d for d in dirs if d not in ('proc', 'sys', 'dev', 'usr')]
                    names = files + dirs
                    # One substring test per directory, in C; names are looked at one by one only where it hits.
                    joined = '\\n'.join(names)
                    if not any(w in joined for w in wanted):
                        continue
                    for name in names:
                        if name in wanted[:3] or wanted[3] in name:
                            print('FOUND', os.path.join(top, name))
                        if name == wanted[4]:
                            print('OWN', os.path.join(top, name))
                print('WALKED', time.monotonic() - started)
                """;
        String probe = """
                import os, time
                started = time.monotonic()
                for target in [%s, %s, %s, %s]:
                    try:
                        if os.path.isdir(target):
                            print('LISTED', target, sorted(os.listdir(target)))
                        else:
                            print('READ', target, open(target).read())
                    except OSError as e:
                        print('DENIED', target, type(e).__name__)
                """.formatted(pyString(fix.toString()), pyString(root.resolve("dataset").toString()),
                pyString(referenceCache.toString()), pyString(root.resolve("runs").toString()))
                + walk.formatted(pyString(id), pyString(ownTest), pyString("/"));
        String systemProbe = "import os, time\nstarted = time.monotonic()\n"
                + walk.formatted(pyString(id), pyString(ownTest), pyString("/usr"));
        Files.walkFileTree(Path.of("/usr"), new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
                return FileVisitResult.CONTINUE;
            }
        });
        Files.writeString(script, """
                latency_ms: 0
                rules:
                  - when: {turn: 1}
                    reply:
                      tool_calls:
                        - name: probe
                          arguments: {code: %s, timeout_s: 20}
                        - name: probe
                          arguments: {code: %s, timeout_s: 20}
                  - when: {turn: 2}
                    reply:
                      tool_calls:
                        - name: read_file
                          arguments: {path: %s}
                        - name: read_file
                          arguments: {path: %s}
                        - name: read_file
                          arguments: {path: %s}
                        - name: read_file
                          arguments: {path: "argparse.py", start: 555, end: 575}
                  - when: {turn: 3}
                    reply:
                      tool_calls:
                        - name: list_files
                          arguments: {path: ".."}
                        - name: list_files
                          arguments: {path: %s}
                        - name: search_code
                          arguments: {pattern: %s}
                        - name: search_code
                          arguments: {pattern: %s}
                default:
                  tool_calls:
                    - name: reraise
                      arguments: {reason: "nothing found"}
                """.formatted(JSON.writeValueAsString(probe), JSON.writeValueAsString(systemProbe),
                JSON.writeValueAsString(fix.toString()),
                JSON.writeValueAsString("../../../../../../.." + fix), JSON.writeValueAsString("../fix.patch"),
                JSON.writeValueAsString(referenceCache.toString()),
                JSON.writeValueAsString(Pattern.quote(searched)), JSON.writeValueAsString(Pattern.quote(ownLine))));
        Path backbones = work.resolve("backbones.yaml");
        try (LlmStubServer server = StubBackbone.serve(script)) {
            StubBackbone.write(backbones, "openai", server.openAiBaseUrl(), "api_key_env: HEALBENCH_IT_KEY",
                    "prices: {input: 1.0, output: 4.0}");
            Run run = run(root, "toolloop", List.of(id), backbones);
            assertTrue(server.requestsServed() >= 4, "the agent made every move");
            JsonNode trajectory = run.instance(id, "trajectory.json");
            List<String> observations = new ArrayList<>();
            for (JsonNode step : trajectory.get("steps")) {
                for (JsonNode result : step.at("/observation/results")) {
                    observations.add(result.get("content").asText());
                }
            }
            // two probes; three reads out, one read in; two listings out; a search for the fix, one for the program's line.
            assertTrue(observations.size() >= 10, "every probe, read, listing and search was answered: " + observations);
            String probed = observations.get(0);
            String systemProbed = observations.get(1);
            assertTrue(probed.contains("WALKED") && probed.contains("OWN "), "the walk ran and saw the sources: " + probed);
            assertTrue(systemProbed.contains("WALKED"), "the walk of /usr ran: " + systemProbed);
            for (String walked : List.of(probed, systemProbed)) {
                assertFalse(walked.contains("READ ") || walked.contains("LISTED ") || walked.contains("FOUND "),
                        "the probe reached nothing of the answer key: " + walked);
            }
            assertEquals(4, probed.lines().filter(l -> l.startsWith("DENIED ")).count(), probed);
            for (int i : List.of(2, 3, 4, 6, 7)) {
                assertTrue(observations.get(i).startsWith("error:") || observations.get(i).startsWith("(no files)"),
                        "reads and listings outside the sources are refused: " + observations.get(i));
            }
            assertTrue(observations.get(5).contains(ownLine), "read_file reads the sources: " + observations.get(5));
            assertTrue(observations.get(8).startsWith("(no matches)"), "the fix is not in the sources: " + observations.get(8));
            assertTrue(observations.get(9).contains(ownLine), "search_code searches the sources: " + observations.get(9));
            String seen = String.join("\n", observations) + Files.readString(run.dir.resolve("instances").resolve(id)
                    .resolve("report.json"));
            for (String line : fixLines) {
                assertFalse(seen.contains(line), "the fix leaked: " + line);
            }
            assertTrue(Files.isDirectory(referenceCache), "the host does have a reference cache");
            try (Stream<Path> cached = Files.list(referenceCache)) {
                for (Path entry : cached.toList()) {
                    assertFalse(seen.contains(entry.getFileName().toString()), "the reference cache was listed: " + entry);
                }
            }
        }
    }

    /** Runs {@code agent} over the slice with the {@code stub} backbone of {@code backbones}; it must exit 0. */
    private static Run run(Path root, String agent, List<String> slice, Path backbones, String... options)
            throws Exception {
        List<String> arguments = new ArrayList<>(List.of("--instances", String.join(",", slice), "--agent", agent,
                "--backbone", "stub", "--backbones", backbones.toString()));
        arguments.addAll(List.of(options));
        ProcessRunner.Result result = runCli(root, arguments);
        assertEquals(0, result.exitCode(), "stdout:\n" + result.stdout() + "\nstderr:\n" + result.stderr());
        assertFalse(result.stdout().contains(SECRET) || result.stderr().contains(SECRET), "the key was printed");
        List<String> lines = result.stdoutLines();
        JsonNode summary = JSON.readTree(lines.get(lines.size() - 1));
        return new Run(summary, Path.of(summary.get("report").asText()).getParent());
    }

    /**
     * {@code healbench run --json ARGUMENTS} from the packaged cli, with {@link #SECRET} as the key of the test
     * backbones (HEALBENCH_IT_KEY) and of ad-hoc ones (HEALBENCH_LLM_API_KEY).
     */
    private static ProcessRunner.Result runCli(Path root, List<String> arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of("run", "--json"));
        command.addAll(arguments);
        return ProcessRunner.run(ProcessRunner.standalone(root, List.of(), command), Map.of("HEALBENCH_HOME", root.toString(), "HEALBENCH_IT_KEY", SECRET,
                "HEALBENCH_LLM_API_KEY", SECRET), root, 900);
    }

    private static List<Path> filesUnder(Path... roots) throws IOException {
        List<Path> files = new ArrayList<>();
        for (Path dir : roots) {
            if (Files.exists(dir)) {
                try (Stream<Path> walk = Files.walk(dir)) {
                    walk.filter(Files::isRegularFile).forEach(files::add);
                }
            }
        }
        return files;
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(node -> out.add(node.asText()));
        return out;
    }

    /** A Python string literal for a path (paths here hold no quote or backslash). */
    private static String pyString(String text) {
        return "'" + text + "'";
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
