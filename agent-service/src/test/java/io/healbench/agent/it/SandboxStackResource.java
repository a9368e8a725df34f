package io.healbench.agent.it;

import io.healbench.auth.ServiceTokens;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * Runs the real guard-service and sandbox-service, from their built jars, as child processes on
 * free loopback ports, and points agent-service's {@code sandbox} client at the sandbox.
 *
 * <p>Free ports rather than their fixed test ports: their own test suites may be running at the
 * same time on this machine. The sandbox's session events go to this module's test exchange.
 */
public class SandboxStackResource implements QuarkusTestResourceLifecycleManager {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final List<Process> started = new ArrayList<>();
    /** The key of this test deployment, as its Secret would give it to every service. */
    private final String serviceKey = Base64.getEncoder().encodeToString(ServiceTokens.randomKey());

    @Override
    public Map<String, String> start() {
        Path home = Path.of(System.getProperty("healbench.home", "..")).toAbsolutePath().normalize();
        Path guardJar = requireJar(home, "guard-service");
        Path sandboxJar = requireJar(home, "sandbox-service");
        Path logs = home.resolve("agent-service/target/it-logs");
        try {
            Files.createDirectories(logs);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int guardPort = freePort();
        int sandboxPort = freePort();
        launch("guard-service", guardJar, logs, home, guardPort, List.of());
        launch("sandbox-service", sandboxJar, logs, home, sandboxPort, List.of(
                "-Dquarkus.grpc.clients.guard.host=127.0.0.1",
                "-Dquarkus.grpc.clients.guard.port=" + guardPort,
                "-Dmp.messaging.outgoing.session-events.exchange.name=healbench.events.test-agent"));
        String port = String.valueOf(sandboxPort);
        return Map.of(
                "quarkus.grpc.clients.sandbox.host", "127.0.0.1",
                "quarkus.grpc.clients.sandbox.port", port,
                // In test mode a gRPC client dials its test-port, falling back to this app's own port.
                "quarkus.grpc.clients.sandbox.test-port", port,
                "healbench.service-auth.key", serviceKey);
    }

    @Override
    public void stop() {
        for (Process process : started) {
            process.destroy();
        }
        for (Process process : started) {
            try {
                if (!process.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
        started.clear();
    }

    private static Path requireJar(Path home, String module) {
        Path jar = home.resolve(module).resolve("target/quarkus-app/quarkus-run.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("this end-to-end test runs the real " + module + " and needs " + jar
                    + "; build it first: mvn -B -q install -pl " + module + " -DskipTests");
        }
        return jar;
    }

    private void launch(String name, Path jar, Path logs, Path home, int port, List<String> extraProperties) {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.add("-Xmx512m");
        command.add("-Dhealbench.home=" + home);
        command.add("-Dquarkus.http.host=127.0.0.1");
        command.add("-Dquarkus.http.port=" + port);
        command.addAll(extraProperties);
        command.add("-jar");
        command.add(jar.toString());
        Path log = logs.resolve(name + ".log");
        try {
            ProcessBuilder builder = new ProcessBuilder(command)
                    .directory(home.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            builder.environment().put("HEALBENCH_SERVICE_AUTH_KEY", serviceKey);
            Process process = builder.start();
            started.add(process);
            awaitListening(name, process, port, log);
        } catch (IOException e) {
            stop();
            throw new UncheckedIOException("cannot start " + name, e);
        }
    }

    private void awaitListening(String name, Process process, int port, Path log) throws IOException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                stop();
                throw new IllegalStateException(name + " exited with " + process.exitValue() + " at start-up:\n"
                        + tail(log));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return;
            } catch (IOException notYet) {
                sleep();
            }
        }
        stop();
        throw new IllegalStateException(name + " did not listen on " + port + " within " + START_TIMEOUT + ":\n"
                + tail(log));
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    private static void sleep() {
        try {
            Thread.sleep(250);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting the sandbox stack", e);
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
