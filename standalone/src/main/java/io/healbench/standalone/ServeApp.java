package io.healbench.standalone;

import io.healbench.cli.ExternalEndpoint;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * {@code healbench serve}: the standalone platform with nothing to run. It prints where external agents connect and
 * serves until stopped; runs are created against it with {@code healbench run --server HOST:PORT}.
 */
public class ServeApp implements QuarkusApplication {

    private final ExternalEndpoint endpoint;

    public ServeApp(@ConfigProperty(name = "quarkus.http.port") int port,
            @ConfigProperty(name = "healbench.agent.gateway.local-token") String token) {
        this.endpoint = ExternalEndpoint.onLoopback(port, token);
    }

    @Override
    public int run(String... args) {
        System.out.println(endpoint.jsonLine(null));
        System.out.flush();
        Quarkus.waitForExit();
        return 0;
    }
}
