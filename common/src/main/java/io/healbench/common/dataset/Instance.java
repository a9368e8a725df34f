package io.healbench.common.dataset;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * One HealBench instance: a runtime error in real code, as described by {@code instance.yaml}
 * (DESIGN §8). Paths in it are relative to the subject root, except {@link #directory()}.
 */
public record Instance(
        String id,
        Subject subject,
        String python,
        List<String> projectRoots,
        String bugPatch,
        String fixPatch,
        String targetTest,
        ExpectedCrash expectedCrash,
        String policy,
        Map<String, String> provenance,
        Map<String, String> determinism,
        Path directory,
        String digest) {

    /** The crash the BUGGY variant must raise. */
    public record ExpectedCrash(String type, String file, String function, int line) {}

    /** Resolves a file of the instance directory, e.g. its bug patch. */
    public Path file(String relative) {
        Path resolved = directory.resolve(relative).normalize();
        if (!resolved.startsWith(directory)) {
            throw new InstanceFormatException(directory.resolve("instance.yaml"), "path", "escapes the instance directory: " + relative);
        }
        return resolved;
    }
}
