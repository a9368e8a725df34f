package io.healbench.agent.messaging;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.Map;

/**
 * agent-service with its sandbox client pointed at a loopback port nobody listens on: a real
 * "sandbox unavailable", with no stand-in for the sandbox.
 */
public class UnreachableSandboxProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        String port = String.valueOf(closedPort());
        // In test mode a gRPC client dials its test-port (falling back to this app's own test port).
        return Map.of(
                "quarkus.grpc.clients.sandbox.host", "127.0.0.1",
                "quarkus.grpc.clients.sandbox.port", port,
                "quarkus.grpc.clients.sandbox.test-port", port,
                // Two short pauses: the policy, not the waiting, is under test.
                "healbench.agent.requeue-delay", "1s",
                "healbench.agent.max-requeues", "2");
    }

    private static int closedPort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
