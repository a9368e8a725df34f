package io.healbench.bench;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real Keycloak for the tests, through {@code deploy/local/keycloak.sh} (idempotent: reuses a
 * Keycloak already on 127.0.0.1:8180). A Keycloak this resource started is stopped after the tests.
 */
public class KeycloakTestResource implements QuarkusTestResourceLifecycleManager {

    static final String BASE_URL = "http://127.0.0.1:8180";

    private boolean startedHere;

    @Override
    public Map<String, String> start() {
        startedHere = run("status") != 0;
        if (startedHere && run("start") != 0) {
            throw new IllegalStateException("deploy/local/keycloak.sh start failed; see its output above");
        }
        return Map.of(
                "quarkus.oidc.acme.auth-server-url", issuer("healbench-acme"),
                "quarkus.oidc.globex.auth-server-url", issuer("healbench-globex"));
    }

    @Override
    public void stop() {
        if (startedHere) {
            run("stop");
        }
    }

    static String issuer(String realm) {
        return BASE_URL + "/realms/" + realm;
    }

    private static int run(String command) {
        Path script = Path.of(System.getProperty("healbench.home", ".."), "deploy", "local", "keycloak.sh");
        if (!Files.isRegularFile(script)) {
            throw new IllegalStateException("missing " + script + " (is the healbench.home system property the repo root?)");
        }
        try {
            Process process = new ProcessBuilder("bash", script.toString(), command).inheritIO().start();
            if (!process.waitFor(300, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("keycloak.sh " + command + " did not finish in 300 s");
            }
            return process.exitValue();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + script, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
