package io.healbench.common.provenance;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.stream.Stream;

/** What a result was made with: the runtime's sources, the HealCore policy, the project's commit. */
public final class Provenance {

    public static final String UNKNOWN = "unknown";

    private Provenance() {}

    /**
     * A digest of healrt's sources and data files ({@code healrtPackage} is the {@code healrt/healrt} package): a new
     * healrt may instrument other statements, so results made with another one are not the same measurement.
     */
    public static String healrtFingerprint(Path healrtPackage) {
        if (!Files.isDirectory(healrtPackage)) {
            return "no-healrt";
        }
        try (Stream<Path> files = Files.walk(healrtPackage)) {
            StringBuilder all = new StringBuilder();
            for (Path f : files.filter(p -> p.toString().endsWith(".py") || p.toString().endsWith(".json") || p.toString().endsWith(".yaml")).sorted().toList()) {
                all.append(healrtPackage.relativize(f)).append('\n')
                        .append(sha256(Files.readString(f, StandardCharsets.UTF_8))).append('\n');
            }
            return sha256(all.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot fingerprint healrt in " + healrtPackage, e);
        }
    }

    /** The HealCore policy's {@code version} (healrt's copy, which guard-service is built with). */
    public static String healcorePolicyVersion(Path healrtPackage) {
        Path policy = healrtPackage.resolve("healcore_policy.json");
        try {
            return Files.isRegularFile(policy) ? new ObjectMapper().readTree(policy.toFile()).path("version").asText(UNKNOWN) : UNKNOWN;
        } catch (IOException e) {
            return UNKNOWN;
        }
    }

    /**
     * The commit checked out in {@code home}, read from {@code .git} without running git; {@value #UNKNOWN} outside a
     * checkout (an image deploys it through configuration instead).
     */
    public static String gitCommit(Path home) {
        Path git = home.resolve(".git");
        try {
            String head = Files.readString(git.resolve("HEAD")).strip();
            if (!head.startsWith("ref: ")) {
                return head;
            }
            String ref = head.substring(5);
            Path loose = git.resolve(ref);
            if (Files.isRegularFile(loose)) {
                return Files.readString(loose).strip();
            }
            Path packed = git.resolve("packed-refs");
            if (Files.isRegularFile(packed)) {
                for (String line : Files.readAllLines(packed)) {
                    if (line.endsWith(" " + ref)) {
                        return line.substring(0, line.indexOf(' '));
                    }
                }
            }
            return UNKNOWN;
        } catch (IOException e) {
            return UNKNOWN;
        }
    }

    public static String sha256(String text) {
        return sha256(text.getBytes(StandardCharsets.UTF_8));
    }

    public static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
