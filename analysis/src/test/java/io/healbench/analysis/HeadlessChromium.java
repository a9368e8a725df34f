package io.healbench.analysis;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Debian's {@code chromium}, headless, for the browser tests: each call is a fresh browser with a new empty profile, no
 * background networking (the machines have no network beyond package registries, and these requests would only wait),
 * killed with all its processes if it has not finished within {@link #TIMEOUT_SECONDS}.
 */
public final class HeadlessChromium {

    static final long TIMEOUT_SECONDS = 60;
    static final String INSTALL_HINT = "Debian's chromium is not installed: run `PYTHONPATH=dataset/tools python3 -m hbdata "
            + "preflight --for tests` from the repository root (it installs it), or `apt-get install -y "
            + "--no-install-recommends chromium`";

    private final Path executable;

    private HeadlessChromium(Path executable) {
        this.executable = executable;
    }

    /** The browser on PATH (or at /usr/bin/chromium); IllegalStateException saying how to install it when missing. */
    static HeadlessChromium find() {
        List<String> directories = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
        directories.add("/usr/bin");
        for (String directory : directories) {
            if (!directory.isEmpty()) {
                Path candidate = Path.of(directory, "chromium");
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return new HeadlessChromium(candidate);
                }
            }
        }
        throw new IllegalStateException(INSTALL_HINT);
    }

    /** The page's DOM as serialized after it loaded (and after its scripts ran). */
    String dumpDom(Path page) throws IOException, InterruptedException {
        return run(List.of("--dump-dom", page.toUri().toString()));
    }

    /** A PNG of the page's first {@code width} x {@code height} pixels. */
    void screenshot(Path page, Path png, int width, int height) throws IOException, InterruptedException {
        Files.deleteIfExists(png);
        run(List.of("--hide-scrollbars", "--screenshot=" + png.toAbsolutePath(), "--window-size=" + width + "," + height,
                page.toUri().toString()));
        if (!Files.isRegularFile(png)) {
            throw new IOException("chromium wrote no screenshot at " + png);
        }
    }

    /** Runs the browser on the arguments and returns its standard output. */
    private String run(List<String> arguments) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory("healbench-chromium-profile");
        Path stdout = Files.createTempFile("healbench-chromium", ".out");
        Path stderr = Files.createTempFile("healbench-chromium", ".err");
        List<String> command = new ArrayList<>(List.of(executable.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update", "--no-first-run",
                "--user-data-dir=" + profile));
        command.addAll(arguments);
        Process process = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
        try {
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new IOException("chromium did not finish within " + TIMEOUT_SECONDS + " s: " + command + "\n"
                        + tail(stderr));
            }
            if (process.exitValue() != 0) {
                throw new IOException("chromium exited with " + process.exitValue() + ": " + command + "\n" + tail(stderr));
            }
            return Files.readString(stdout, StandardCharsets.UTF_8);
        } finally {
            Files.deleteIfExists(stdout);
            Files.deleteIfExists(stderr);
            deleteTree(profile);
        }
    }

    private static String tail(Path file) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        return text.length() <= 3000 ? text : text.substring(text.length() - 3000);
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
