package io.healbench.sandbox.service;

import io.healbench.common.dataset.Instance;
import io.healbench.common.dataset.InstanceCatalog;
import io.healbench.common.dataset.InstanceFormatException;
import io.healbench.sandbox.config.SandboxPaths;
import io.healbench.sandbox.service.SandboxException.Kind;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.file.Files;
import java.nio.file.Path;

/** The dataset's instances by id, as sessions and reference runs name them. */
@ApplicationScoped
public class InstanceLookup {

    private static final String INSTANCE_ID = "[a-z0-9][a-z0-9._-]{2,120}";

    private final Path datasetDir;

    public InstanceLookup(SandboxPaths paths) {
        this.datasetDir = paths.datasetDir();
    }

    public Instance get(String id) {
        if (id == null || !id.matches(INSTANCE_ID)) {
            throw new SandboxException(Kind.INVALID_ARGUMENT, "INSTANCE_ID_INVALID", "instance_id must match " + INSTANCE_ID + ", got '" + id + "'");
        }
        Path yaml = datasetDir.resolve("instances").resolve(id).resolve("instance.yaml");
        if (!Files.isRegularFile(yaml)) {
            throw new SandboxException(Kind.NOT_FOUND, "INSTANCE_NOT_FOUND", "no instance '" + id + "' in " + datasetDir);
        }
        try {
            return InstanceCatalog.parse(yaml);
        } catch (InstanceFormatException e) {
            throw new SandboxException(Kind.FAILED_PRECONDITION, "INSTANCE_INVALID", e.getMessage(), e);
        }
    }
}
