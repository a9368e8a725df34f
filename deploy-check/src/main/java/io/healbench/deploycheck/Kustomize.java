package io.healbench.deploycheck;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Renders a kustomization with {@code kubectl kustomize} (the kustomize built into kubectl: 5.5 in kubectl 1.32),
 * the way {@code kubectl apply -k} will. The binary is {@code -Ddeploycheck.kubectl}, else {@code $KUBECTL}, else
 * {@code kubectl} on the PATH.
 */
public final class Kustomize {

    /** kustomize's own error for a kustomization it cannot build, with its message. */
    public static final class RenderingFailed extends RuntimeException {
        RenderingFailed(String message) {
            super(message);
        }
    }

    private static final long TIMEOUT_SECONDS = 60;

    private Kustomize() {
    }

    public static String render(Path kustomizationDir) {
        Path stderr = null;
        try {
            stderr = Files.createTempFile("kustomize", ".err");
            Process process = new ProcessBuilder(kubectl(), "kustomize", kustomizationDir.toString())
                    .redirectError(stderr.toFile())
                    .start();
            process.getOutputStream().close();
            byte[] out = process.getInputStream().readAllBytes();
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new RenderingFailed("kubectl kustomize " + kustomizationDir + " took over " + TIMEOUT_SECONDS + " s");
            }
            if (process.exitValue() != 0) {
                throw new RenderingFailed("kubectl kustomize " + kustomizationDir + " failed: " + Files.readString(stderr).strip());
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kubectl kustomize " + kustomizationDir, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RenderingFailed("interrupted while rendering " + kustomizationDir);
        } finally {
            if (stderr != null) {
                try {
                    Files.deleteIfExists(stderr);
                } catch (IOException ignored) {
                    // A temporary file left behind is harmless.
                }
            }
        }
    }

    public static List<Manifest> build(Path kustomizationDir) {
        return Manifests.parse(render(kustomizationDir));
    }

    static String kubectl() {
        String configured = System.getProperty("deploycheck.kubectl", System.getenv("KUBECTL"));
        if (configured != null && !configured.isBlank()) {
            return configured;
        }
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(File.pathSeparator)) {
                Path candidate = Path.of(dir, "kubectl");
                if (Files.isExecutable(candidate)) {
                    return candidate.toString();
                }
            }
        }
        throw new IllegalStateException("kubectl is not on the PATH: deploy-check renders with `kubectl kustomize` "
                + "(kubectl 1.32 or later); install it or name it with -Ddeploycheck.kubectl or $KUBECTL");
    }
}
