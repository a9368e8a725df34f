package io.healbench.sandbox.service.reference;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.healbench.common.dataset.Instance;
import io.healbench.common.provenance.Provenance;
import io.healbench.sandbox.config.SandboxConfig;
import io.healbench.sandbox.service.HealrtVersion;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Recorded REFERENCE runs on disk, one JSON file per key. The key is the instance digest, the interpreter version
 * and a fingerprint of healrt's sources: a new healrt may instrument other statements, so its traces are not
 * comparable with old ones.
 */
@ApplicationScoped
public class ReferenceCache {

    private static final Logger LOG = Logger.getLogger(ReferenceCache.class);
    private static final ObjectMapper JSON = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private final Path directory;
    private final HealrtVersion healrt;

    public ReferenceCache(HealrtVersion healrt, SandboxConfig config, @ConfigProperty(name = "healbench.home", defaultValue = ".") String home) {
        Path homeDir = Path.of(home).toAbsolutePath().normalize();
        this.directory = config.referenceCache().map(homeDir::resolve).orElse(homeDir.resolve(".cache").resolve("reference")).normalize();
        this.healrt = healrt;
    }

    public Path directory() {
        return directory;
    }

    /** The cache key of an instance's reference run on this interpreter with this healrt. */
    public String key(Instance instance) {
        return Provenance.sha256(instance.digest() + "\n" + instance.python() + "\n" + healrt.fingerprint()).substring(0, 24);
    }

    public Optional<ReferenceRun> find(Instance instance) {
        Path file = file(instance);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try {
            return Optional.of(JSON.readValue(file.toFile(), ReferenceRun.class).fromCache());
        } catch (IOException e) {
            // A torn or outdated entry is recorded again rather than trusted.
            LOG.warnf("ignoring unreadable reference cache entry %s: %s", file, e.getMessage());
            return Optional.empty();
        }
    }

    /** Stores the run atomically: readers see the old entry or the whole new one. */
    public void store(Instance instance, ReferenceRun run) {
        Path file = file(instance);
        try {
            Files.createDirectories(directory);
            Path partial = Files.createTempFile(directory, file.getFileName().toString(), ".partial");
            JSON.writeValue(partial.toFile(), run);
            Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot store the reference run of " + instance.id() + " in " + directory, e);
        }
    }

    private Path file(Instance instance) {
        return directory.resolve(instance.id() + "-py" + instance.python() + "-" + key(instance) + ".json");
    }
}
