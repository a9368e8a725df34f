package io.healbench.sandbox.service.workspace;

import io.healbench.common.dataset.Instance;
import io.healbench.sandbox.service.model.Variant;
import java.nio.file.Path;

/**
 * One materialized copy of an instance: {@code dir/src} holds the project roots of the chosen variant,
 * {@code plan} says how to run its target test, and the control socket, runtime spec and outcome file
 * live in {@code dir}.
 */
public record Workspace(Path dir, Instance instance, Variant variant, RunPlan plan) {

    public Path sourceDir() {
        return dir.resolve("src");
    }

    public Path controlSocket() {
        return dir.resolve("control.sock");
    }

    public Path runtimeSpec() {
        return dir.resolve("healrt-spec.json");
    }

    public Path outcomeFile() {
        return dir.resolve("outcome.json");
    }
}
