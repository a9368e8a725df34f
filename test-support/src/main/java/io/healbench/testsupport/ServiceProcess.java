package io.healbench.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One service run from its packaged app ({@code <module>/target/quarkus-app/quarkus-run.jar}) as its own process: the
 * real thing beside a test, never a fake. Without the jar the test fails, saying how to build it.
 */
public final class ServiceProcess implements AutoCloseable {

    private final String name;
    private final int port;
    private final Process process;
    private final Path log;

    private ServiceProcess(String name, int port, Process process, Path log) {
        this.name = name;
        this.port = port;
        this.process = process;
        this.log = log;
    }

    /** {@code environment}: added to this process's own (secrets go here, not on a command line others can read). */
    public static ServiceProcess start(Path root, String module, int port, Map<String, String> properties,
            Map<String, String> environment) throws IOException {
        Path jar = root.resolve(module).resolve("target/quarkus-app/quarkus-run.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("this test runs the real " + module + " and needs " + jar
                    + "; build it first: mvn -B -q install -pl " + module + " -am -DskipTests");
        }
        List<String> options = new ArrayList<>(List.of("-Xmx512m", "-Dquarkus.http.host=127.0.0.1",
                "-Dquarkus.http.port=" + port, "-Dhealbench.home=" + root));
        properties.forEach((k, v) -> options.add("-D" + k + "=" + v));
        List<String> command = JavaCommand.forJar(jar, options, List.of());
        Path log = Files.createTempFile("healbench-" + module, ".log");
        ProcessBuilder builder = new ProcessBuilder(command).directory(root.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(environment);
        Process process = builder.start();
        return new ServiceProcess(module, port, process, log);
    }

    /** Waits until the service reports ready on its health endpoint. */
    public void awaitReady(Duration timeout) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + ":\n" + logTail());
            }
            try {
                HttpResponse<String> response = http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/q/health/ready")).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException(name + " not ready within " + timeout + ":\n" + logTail());
    }

    public boolean logContains(String text) throws IOException {
        return new String(Files.readAllBytes(log), java.nio.charset.StandardCharsets.ISO_8859_1).contains(text);
    }

    @Override
    public String toString() {
        return name;
    }

    public String logTail() throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    }

    /** kill -9: the process gets no chance to finish anything, as when a node dies. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(20, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }

    /** A loopback port free now: the services under test never take fixed ports, so suites can run side by side. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
