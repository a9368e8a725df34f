package io.healbench.sandbox.health;

import io.healbench.sandbox.config.SandboxPaths;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.file.Files;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Ready when the runtime package the sessions need is present. */
@Readiness
@ApplicationScoped
public class SandboxHealth implements HealthCheck {

    private final SandboxPaths paths;

    public SandboxHealth(SandboxPaths paths) {
        this.paths = paths;
    }

    @Override
    public HealthCheckResponse call() {
        boolean healrt = Files.isRegularFile(paths.healrtDir().resolve("healrt").resolve("__main__.py"));
        return HealthCheckResponse.named("sandbox")
                .status(healrt)
                .withData("healrt", paths.healrtDir().toString())
                .build();
    }
}
