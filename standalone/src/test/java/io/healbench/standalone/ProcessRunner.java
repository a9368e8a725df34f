package io.healbench.standalone;

import io.healbench.common.dataset.Instance;
import io.healbench.common.dataset.InstanceCatalog;
import io.healbench.testsupport.JavaCommand;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a command to completion for a test, with its output captured in files. */
final class ProcessRunner {

    record Result(int exitCode, String stdout, String stderr) {
        List<String> stdoutLines() {
            return stdout.lines().filter(l -> !l.isBlank()).toList();
        }
    }

    static Path repoRoot() {
        String home = System.getProperty("healbench.home");
        if (home == null) {
            throw new IllegalStateException("the healbench.home system property must name the repository root");
        }
        return Path.of(home).toAbsolutePath().normalize();
    }

    /** The first {@code count} CPython-stdlib instances of the bundled dataset by id: a slice that does not depend on catalog order. */
    static List<String> firstStdlibInstances(Path root, int count) {
        return InstanceCatalog.load(root.resolve("dataset")).all().stream()
                .map(Instance::id).filter(id -> id.startsWith("stdlib-")).sorted().limit(count).toList();
    }

    /** {@code healbench ARGUMENTS}, run from the standalone app's packaged jar. */
    static List<String> standalone(Path root, String... arguments) {
        return standalone(root, List.of(), List.of(arguments));
    }

    static List<String> standalone(Path root, List<String> jvmOptions, List<String> arguments) {
        return JavaCommand.forJar(root.resolve("standalone/target/quarkus-app/quarkus-run.jar"), jvmOptions, arguments);
    }

    private static String clientPython;

    /**
     * The Python of our reference clients (clients/python/env.sh makes its environment from the local wheelhouses,
     * once per machine, and prints it last).
     */
    static synchronized String clientPython() throws IOException, InterruptedException {
        if (clientPython == null) {
            Path root = repoRoot();
            Result env = run(List.of("bash", root.resolve("clients/python/env.sh").toString()), Map.of(), root, 900);
            if (env.exitCode() != 0) {
                throw new IllegalStateException("clients/python/env.sh failed:\n" + env.stdout() + env.stderr());
            }
            String[] lines = env.stdout().strip().split("\n");
            clientPython = lines[lines.length - 1].strip();
        }
        return clientPython;
    }

    /** The environment the reference clients run in. */
    static Map<String, String> clientEnvironment() {
        return Map.of();
    }

    static Result run(List<String> command, Map<String, String> env, Path workDir, long timeoutSeconds)
            throws IOException, InterruptedException {
        Path out = Files.createTempFile("healbench-it", ".out");
        Path err = Files.createTempFile("healbench-it", ".err");
        ProcessBuilder builder = new ProcessBuilder(command).directory(workDir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().putAll(env);
        Process process = builder.start();
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            throw new AssertionError(command + " did not finish within " + timeoutSeconds + " s; stderr:\n"
                    + Files.readString(err, StandardCharsets.UTF_8));
        }
        return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }

    private ProcessRunner() {}
}
