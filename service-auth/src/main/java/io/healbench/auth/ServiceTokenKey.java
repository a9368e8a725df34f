package io.healbench.auth;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.util.Base64;
import org.jboss.logging.Logger;

/** The process's {@link ServiceTokens}, from the configured key or, where there is none, a random one. */
@ApplicationScoped
public class ServiceTokenKey {

    private static final Logger LOG = Logger.getLogger(ServiceTokenKey.class);

    private final ServiceTokens tokens;
    private final String caller;

    public ServiceTokenKey(ServiceAuthConfig config) {
        byte[] key;
        if (config.key().isPresent() && !config.key().get().isBlank()) {
            String text = config.key().get().strip();
            try {
                key = (text.contains("-") || text.contains("_") ? Base64.getUrlDecoder() : Base64.getDecoder()).decode(text);
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("healbench.service-auth.key (HEALBENCH_SERVICE_AUTH_KEY) is not base64", e);
            }
        } else {
            key = ServiceTokens.randomKey();
            LOG.info("no healbench.service-auth.key: this process made a random service-token key; only calls from within it"
                    + " are accepted (set HEALBENCH_SERVICE_AUTH_KEY, the same on every service, for a distributed deployment)");
        }
        this.tokens = new ServiceTokens(key, Clock.systemUTC());
        this.caller = config.caller();
    }

    public ServiceTokens tokens() {
        return tokens;
    }

    public String caller() {
        return caller;
    }
}
