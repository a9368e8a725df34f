package io.healbench.agent.llmstub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The llm-stub command line: its start line, serving until interrupted, and status 2 for bad arguments or scripts. */
class LlmStubCommandTest {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void printsOneStartLineThenServesUntilInterrupted() throws Exception {
        Path script = ScriptFiles.write(dir, "default: {text: served}");
        AtomicReference<Thread> serving = new AtomicReference<>();
        CompletableFuture<Integer> status = CompletableFuture.supplyAsync(() -> {
            serving.set(Thread.currentThread());
            return run("--script", script.toString(), "--port", "0", "--latency-ms", "0");
        });

        JsonNode line = new ObjectMapper().readTree(awaitStartLine());
        String base = line.path("openai_base_url").asText();
        assertEquals("http://127.0.0.1:" + line.path("port").asInt() + "/v1", base);
        assertEquals(base + "/", line.path("anthropic_base_url").asText());
        assertEquals("http://127.0.0.1:" + line.path("port").asInt() + "/v1beta", line.path("gemini_base_url").asText());
        HttpResponse<String> reply = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base + "/chat/completions"))
                .header("Authorization", "Bearer k")
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, reply.statusCode());
        assertTrue(reply.body().contains("served"), reply.body());

        serving.get().interrupt();
        assertEquals(0, status.get());
        assertEquals(1, out.toString(StandardCharsets.UTF_8).lines().count());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            no script         | --port 0                         | --script FILE is required
            unknown argument  | --scirpt x.yaml                  | unknown argument '--scirpt'
            missing value     | --script                         | --script needs a value
            bad port          | --script x.yaml --port 70000     | --port must be 0 to 65535
            bad latency       | --script x.yaml --latency-ms -5  | --latency-ms must be a non-negative integer
            """)
    void badArgumentsAreStatus2(String name, String args, String expected) {
        assertEquals(2, run(args.split(" ")));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains(expected), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aBadScriptIsStatus2NamingTheProblem() {
        Path script = ScriptFiles.write(dir, "rules: []");

        assertEquals(2, run("--script", script.toString(), "--port", "0"));
        String message = err.toString(StandardCharsets.UTF_8);
        assertTrue(message.contains(script + ": default: is required"), message);
        assertEquals("", out.toString(StandardCharsets.UTF_8));
    }

    private int run(String... args) {
        return LlmStubCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String awaitStartLine() throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            String printed = out.toString(StandardCharsets.UTF_8);
            if (printed.endsWith("\n")) {
                return printed.strip();
            }
            Thread.sleep(25);
        }
        throw new AssertionError("no start line within 5 s; stderr: " + err.toString(StandardCharsets.UTF_8));
    }
}
