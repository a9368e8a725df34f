package io.healbench.agent.it;

import io.healbench.auth.ServiceTokens;
import io.healbench.testsupport.ServiceProcess;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
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
 * same time on this machine. The sandbox's session events go to this module's test exchange on the broker's default
 * virtual host, not the test's own (a test resource does not see what another one made): the agent-service tests do not
 * read them.
 */
public class SandboxStackResource implements QuarkusTestResourceLifecycleManager {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final List<ServiceProcess> started = new ArrayList<>();
    /** The key of this test deployment, as its Secret would give it to every service. */
    private final String serviceKey = Base64.getEncoder().encodeToString(ServiceTokens.randomKey());

    @Override
    public Map<String, String> start() {
        Path home = Path.of(System.getProperty("healbench.home", "..")).toAbsolutePath().normalize();
        int guardPort = ServiceProcess.freePort();
        int sandboxPort = ServiceProcess.freePort();
        launch(home, "guard-service", guardPort, Map.of());
        launch(home, "sandbox-service", sandboxPort, Map.of(
                "quarkus.grpc.clients.guard.host", "127.0.0.1",
                "quarkus.grpc.clients.guard.port", Integer.toString(guardPort),
                "mp.messaging.outgoing.session-events.exchange.name", "healbench.events.test-agent"));
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
        for (ServiceProcess service : started) {
            try {
                service.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        started.clear();
    }

    private void launch(Path home, String module, int port, Map<String, String> properties) {
        try {
            ServiceProcess service = ServiceProcess.start(home, module, port, properties,
                    Map.of("HEALBENCH_SERVICE_AUTH_KEY", serviceKey));
            started.add(service);
            service.awaitReady(START_TIMEOUT);
        } catch (IOException e) {
            stop();
            throw new IllegalStateException("cannot start " + module, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stop();
            throw new IllegalStateException("interrupted while starting " + module, e);
        }
    }
}
