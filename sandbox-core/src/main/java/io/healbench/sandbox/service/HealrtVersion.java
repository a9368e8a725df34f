package io.healbench.sandbox.service;

import io.healbench.common.provenance.Provenance;
import io.healbench.sandbox.config.SandboxPaths;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.file.Path;

/**
 * The fingerprint of the healrt this sandbox runs ({@link Provenance#healrtFingerprint}), computed on first use: what
 * the sandbox caches from healrt's runs (reference runs, compiled rewrites) is keyed by it, since another healrt may
 * instrument other statements.
 */
@ApplicationScoped
public class HealrtVersion {

    private final Path healrtPackage;
    private volatile String fingerprint;

    public HealrtVersion(SandboxPaths paths) {
        this.healrtPackage = paths.healrtDir().resolve("healrt");
    }

    public String fingerprint() {
        String known = fingerprint;
        if (known == null) {
            known = Provenance.healrtFingerprint(healrtPackage);
            fingerprint = known;
        }
        return known;
    }
}
