package io.healbench.common.dataset;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * One HealBench instance: a runtime error in real code, as described by {@code instance.yaml}
 * (docs/dataset.md §2). Paths in it are relative to the subject root, except {@link #directory()} and,
 * when {@link #targetTestOrigin()} is {@code instance}, the target test's file.
 *
 * @param codebase what {@code --subject} and the dataset statistics count: the subject's
 *                 {@code dataset/subjects/*.yaml} {@code codebase}, else {@link Subject#derivedCodebase()}
 * @param digest   sha256 (hex) of the instance directory, the same as hbdata's; keys cached reference runs
 */
public record Instance(
        String id,
        Subject subject,
        String codebase,
        String python,
        List<String> projectRoots,
        String bugPatch,
        String fixPatch,
        String targetTest,
        String targetTestOrigin,
        ExpectedCrash expectedCrash,
        String policy,
        Map<String, String> provenance,
        Map<String, String> determinism,
        Path directory,
        String digest) {

    /** {@code target_test} is relative to the subject root (the default). */
    public static final String ORIGIN_SUBJECT = "subject";
    /** {@code target_test} is our own test file in the instance directory. */
    public static final String ORIGIN_INSTANCE = "instance";

    /** The crash the BUGGY variant must raise. */
    public record ExpectedCrash(String type, String file, String function, int line) {}

    /** The tier, from {@code provenance.kind}. */
    public Tier tier() {
        return Tier.parse(provenance.get("kind"));
    }

    /** Resolves a file of the instance directory, e.g. its bug patch. */
    public Path file(String relative) {
        Path resolved = directory.resolve(relative).normalize();
        if (!resolved.startsWith(directory)) {
            throw new InstanceFormatException(directory.resolve("instance.yaml"), "path", "escapes the instance directory: " + relative);
        }
        return resolved;
    }
}
