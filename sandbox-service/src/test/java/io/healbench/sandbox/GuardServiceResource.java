package io.healbench.sandbox;

import io.healbench.auth.ServiceTokens;
import io.healbench.testsupport.ServiceProcess;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;

/**
 * Starts the real guard-service (its built {@code quarkus-run.jar}) on a free port and points the sandbox's
 * {@code guard} client at it. There is no fake: without the jar the tests that need the gate fail, saying so.
 */
public class GuardServiceResource implements QuarkusTestResourceLifecycleManager {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private ServiceProcess guard;

    /** The key of this test deployment, as its Secret would give it to both services. */
    private final String serviceKey = Base64.getEncoder().encodeToString(ServiceTokens.randomKey());

    @Override
    public Map<String, String> start() {
        Path home = Path.of(System.getProperty("healbench.home", "..")).toAbsolutePath().normalize();
        int port = ServiceProcess.freePort();
        try {
            guard = ServiceProcess.start(home, "guard-service", port, Map.of(), Map.of("HEALBENCH_SERVICE_AUTH_KEY", serviceKey));
            guard.awaitReady(START_TIMEOUT);
        } catch (IOException e) {
            stop();
            throw new IllegalStateException("cannot start guard-service", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stop();
            throw new IllegalStateException("interrupted while starting guard-service", e);
        }
        // In test mode a gRPC client dials its test-port, which otherwise defaults to this app's own server.
        return Map.of("quarkus.grpc.clients.guard.host", "127.0.0.1",
                "quarkus.grpc.clients.guard.port", Integer.toString(port),
                "quarkus.grpc.clients.guard.test-port", Integer.toString(port),
                // The sandbox under test and the guard-service beside it are one deployment: one service-token key.
                "healbench.service-auth.key", serviceKey);
    }

    @Override
    public void stop() {
        if (guard != null) {
            try {
                guard.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
