package io.healbench.testsupport;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The machine's RabbitMQ for one start of the app under test, on a virtual host of its own: created at start, deleted
 * with everything in it at stop, so that no other run of the tests (another checkout's on this machine, another test
 * class's app) shares its queues. {@link TestBroker#connect} reaches the same host.
 *
 * <p>The host is made with {@code rabbitmqctl}, which works on the broker's own machine with its Erlang cookie (as
 * root, as here; the management plugin that would offer the same over HTTP is not enabled by
 * {@code deploy/local/services.sh}). Where {@code rabbitmqctl} cannot, the app uses the default host, where each
 * module's test profile names its exchanges and queues apart from the other modules'.
 *
 * <p>Also usable without Quarkus: a test that runs the services as processes calls {@link #start()} and passes the
 * properties on.
 */
public class RabbitMqTestResource implements QuarkusTestResourceLifecycleManager {

    static final int PORT = 5672;
    static final String USER = "guest";
    static final String PASSWORD = "guest";
    static final String DEFAULT_VIRTUAL_HOST = "/";

    private String virtualHost;

    @Override
    public Map<String, String> start() {
        LocalServices.requireListening("RabbitMQ", PORT);
        String candidate = "healbench-test-" + UUID.randomUUID().toString().substring(0, 8);
        String refused = rabbitmqctl("add_vhost", candidate);
        if (refused == null) {
            virtualHost = candidate;
            String notPermitted = rabbitmqctl("set_permissions", "-p", candidate, USER, ".*", ".*", ".*");
            if (notPermitted != null) {
                stop();
                throw new IllegalStateException("cannot let " + USER + " use the test's RabbitMQ virtual host: " + notPermitted);
            }
        } else {
            System.err.println("RabbitMqTestResource: no virtual host of the test's own, the default one instead: " + refused);
        }
        return Map.of(
                "rabbitmq-host", LocalServices.HOST,
                "rabbitmq-port", Integer.toString(PORT),
                "rabbitmq-username", USER,
                "rabbitmq-password", PASSWORD,
                "rabbitmq-virtual-host", virtualHost == null ? DEFAULT_VIRTUAL_HOST : virtualHost);
    }

    @Override
    public void stop() {
        if (virtualHost != null) {
            String refused = rabbitmqctl("delete_vhost", virtualHost);
            if (refused != null) {
                System.err.println("RabbitMqTestResource: the virtual host " + virtualHost + " is left behind: " + refused);
            }
            virtualHost = null;
        }
    }

    /** Runs {@code rabbitmqctl args}; null when it succeeded, else what went wrong. */
    private static String rabbitmqctl(String... args) {
        List<String> command = new ArrayList<>(List.of("rabbitmqctl", "-q"));
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return String.join(" ", command) + " did not finish in 60 s";
            }
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return process.exitValue() == 0 ? null : String.join(" ", command) + " exited with " + process.exitValue() + ": " + output;
        } catch (IOException e) {
            return "cannot run rabbitmqctl: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while running rabbitmqctl";
        }
    }
}
