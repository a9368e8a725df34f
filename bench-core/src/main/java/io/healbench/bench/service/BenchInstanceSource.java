package io.healbench.bench.service;

import io.healbench.bench.config.BenchConfig;
import io.healbench.common.dataset.Instance;
import io.healbench.common.dataset.InstanceCatalog;
import io.healbench.common.dataset.InstanceFormatException;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The dataset's instances, read fresh for every run so instances added to the dataset are
 * runnable without a restart, and each run's manifest records the digests it ran.
 */
@ApplicationScoped
public class BenchInstanceSource {

    private final BenchConfig config;
    private final BenchContexts contexts;

    public BenchInstanceSource(BenchConfig config, BenchContexts contexts) {
        this.config = config;
        this.contexts = contexts;
    }

    /**
     * The instances named by {@code ids}, in order without duplicates; every instance when
     * {@code ids} is empty. An unknown id fails with INVALID_ARGUMENT naming it.
     */
    public Uni<List<Instance>> resolve(List<String> ids) {
        return contexts.blocking(this::loadCatalog).map(catalog -> select(catalog, ids));
    }

    private InstanceCatalog loadCatalog() {
        try {
            return InstanceCatalog.load(config.datasetDir());
        } catch (InstanceFormatException e) {
            throw new BenchException(BenchException.Kind.FAILED_PRECONDITION, "DATASET_MALFORMED",
                    "the dataset at " + config.datasetDir() + " is malformed: " + e.getMessage());
        }
    }

    private static List<Instance> select(InstanceCatalog catalog, List<String> ids) {
        if (ids.isEmpty()) {
            List<Instance> all = catalog.all();
            if (all.isEmpty()) {
                throw new BenchException(BenchException.Kind.FAILED_PRECONDITION, "DATASET_EMPTY",
                        "the dataset has no instances");
            }
            return all;
        }
        List<Instance> selected = new ArrayList<>();
        for (String id : new LinkedHashSet<>(ids)) {
            selected.add(catalog.find(id).orElseThrow(() -> BenchException.invalidArgument("INSTANCE_NOT_FOUND",
                    "unknown instance id '" + id + "': it is not in the dataset")));
        }
        return selected;
    }
}
