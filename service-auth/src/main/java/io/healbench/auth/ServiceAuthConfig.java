package io.healbench.auth;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.util.Optional;

/** Service tokens, under {@code healbench.service-auth.*}. */
@ConfigMapping(prefix = "healbench.service-auth")
public interface ServiceAuthConfig {

    /**
     * The deployment's shared key, base64 (standard or URL-safe), at least 32 bytes: from the environment
     * ({@code HEALBENCH_SERVICE_AUTH_KEY}, a Kubernetes Secret), never from a file in the repository. Absent, the process
     * makes a random key of its own: right for the standalone run (every service in one JVM), and in a distributed
     * deployment every call between services is then refused, not let in.
     */
    Optional<String> key();

    /** This process's name in the tokens it makes ({@code sub}): which service is calling. */
    @WithDefault("healbench")
    String caller();
}
