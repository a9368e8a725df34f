package io.healbench.sandbox;

import io.healbench.auth.ServiceTokens;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * Starts the real guard-service (its built {@code quarkus-run.jar}) on a free port and points the sandbox's
 * {@code guard} client at it. There is no fake: without the jar the tests that need the gate fail, saying so.
 */
public class GuardServiceResource implements QuarkusTestResourceLifecycleManager {

    private static final long START_TIMEOUT_MS = 90_000;

    private Process process;

    /** The key of this test deployment, as its Secret would give it to both services. */
    private final String serviceKey = Base64.getEncoder().encodeToString(ServiceTokens.randomKey());

    @Override
    public Map<String, String> start() {
        Path home = Path.of(System.getProperty("healbench.home", "..")).toAbsolutePath().normalize();
        Path jar = home.resolve("guard-service/target/quarkus-app/quarkus-run.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("these tests need the real guard-service: " + jar
                    + " is missing; build it first with `mvn -B install -pl guard-service -DskipTests`");
        }
        int port = freePort();
        Path log = Path.of("target", "guard-service-test.log").toAbsolutePath();
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dquarkus.http.port=" + port,
                "-Dquarkus.http.host=127.0.0.1",
                "-Dhealbench.home=" + home,
                "-jar", jar.toString()));
        try {
            Files.createDirectories(log.getParent());
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
            builder.environment().put("HEALBENCH_SERVICE_AUTH_KEY", serviceKey);
            process = builder.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start guard-service from " + jar, e);
        }
        awaitPort(port, log);
        // In test mode a gRPC client dials its test-port, which otherwise defaults to this app's own server.
        return Map.of("quarkus.grpc.clients.guard.host", "127.0.0.1",
                "quarkus.grpc.clients.guard.port", Integer.toString(port),
                "quarkus.grpc.clients.guard.test-port", Integer.toString(port),
                // The sandbox under test and the guard-service beside it are one deployment: one service-token key.
                "healbench.service-auth.key", serviceKey);
    }

    @Override
    public void stop() {
        if (process != null) {
            process.destroy();
            try {
                if (!process.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
    }

    private void awaitPort(int port, Path log) {
        long deadline = System.currentTimeMillis() + START_TIMEOUT_MS;
        while (System.currentTimeMillis() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("guard-service exited with " + process.exitValue() + " during start-up; see " + log);
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return;
            } catch (IOException e) {
                sleep();
            }
        }
        process.destroyForcibly();
        throw new IllegalStateException("guard-service did not listen on port " + port + " within " + START_TIMEOUT_MS / 1000 + " s; see " + log);
    }

    private static void sleep() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
