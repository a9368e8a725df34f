package io.healbench.agent.llmstub;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The stub serving one script to each test, on a free loopback port, and closed after it. The script goes through a
 * file first, as users give theirs.
 */
final class ScriptedStub implements BeforeEachCallback, AfterEachCallback {

    private final String script;
    private final Duration latencyOverrideOrNull;
    private Path dir;
    private LlmStubServer server;

    ScriptedStub(String script, Duration latencyOverrideOrNull) {
        this.script = script;
        this.latencyOverrideOrNull = latencyOverrideOrNull;
    }

    LlmStubServer server() {
        return server;
    }

    @Override
    public void beforeEach(ExtensionContext context) throws IOException {
        dir = Files.createTempDirectory("llm-stub-script");
        server = LlmStubServer.start(ScriptFiles.load(dir, script), "127.0.0.1", 0, latencyOverrideOrNull);
    }

    @Override
    public void afterEach(ExtensionContext context) throws IOException {
        server.close();
        try (var files = Files.list(dir)) {
            for (Path file : files.toList()) {
                Files.delete(file);
            }
        }
        Files.delete(dir);
    }
}
