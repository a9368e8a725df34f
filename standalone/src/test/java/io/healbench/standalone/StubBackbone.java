package io.healbench.standalone;

import io.healbench.agent.llmstub.LlmStubScript;
import io.healbench.agent.llmstub.LlmStubServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The LLM the ITs give their runs: a local stub speaking a provider's protocol, and a backbones file naming it. */
final class StubBackbone {

    private StubBackbone() {}

    /** The LLM stub answering from {@code script}, on a free loopback port. */
    static LlmStubServer serve(Path script) {
        return LlmStubServer.start(LlmStubScript.load(script), "127.0.0.1", 0, null);
    }

    /**
     * Writes {@code file} with the one backbone {@code stub}: {@code provider}'s protocol at {@code baseUrl}, 512 output
     * tokens, no retries, and each of {@code settings} (a {@code key: value} line, such as the key's variable or the
     * prices) as it is.
     */
    static void write(Path file, String provider, String baseUrl, String... settings) throws IOException {
        StringBuilder yaml = new StringBuilder("""
                backbones:
                  stub:
                    provider: %s
                    model: stub-model
                    base_url: %s
                    max_output_tokens: 512
                    max_retries: 0
                """.formatted(provider, baseUrl));
        for (String setting : settings) {
            yaml.append("    ").append(setting).append('\n');
        }
        Files.writeString(file, yaml);
    }
}
