package io.healbench.agent.llmstub;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Writes a test's script text into a file, as users do, and loads it. */
final class ScriptFiles {

    private ScriptFiles() {
    }

    static Path write(Path dir, String yaml) {
        try {
            return Files.writeString(dir.resolve("script.yaml"), yaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static LlmStubScript load(Path dir, String yaml) {
        return LlmStubScript.load(write(dir, yaml));
    }
}
