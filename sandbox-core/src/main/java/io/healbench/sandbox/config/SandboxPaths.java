package io.healbench.sandbox.config;

import jakarta.enterprise.context.ApplicationScoped;
import java.nio.file.Path;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** The directories the sandbox works with, resolved against {@code healbench.home}. */
@ApplicationScoped
public class SandboxPaths {

    private final Path home;
    private final Path workspaceRoot;
    private final Path datasetDir;
    private final Path healrtDir;
    private final Path datasetTools;

    public SandboxPaths(SandboxConfig config, @ConfigProperty(name = "healbench.home", defaultValue = ".") String home) {
        Path homeDir = Path.of(home).toAbsolutePath().normalize();
        this.home = homeDir;
        this.workspaceRoot = config.workspaceRoot()
                .orElse(Path.of(System.getProperty("java.io.tmpdir"), "healbench", "workspaces"))
                .toAbsolutePath().normalize();
        this.datasetDir = absolute(homeDir, config.datasetDir().orElse(homeDir.resolve("dataset")));
        this.healrtDir = absolute(homeDir, config.healrtDir().orElse(homeDir.resolve("healrt")));
        this.datasetTools = homeDir.resolve("dataset").resolve("tools");
    }

    private static Path absolute(Path home, Path path) {
        return home.resolve(path).normalize();
    }

    /** The repository root ({@code healbench.home}). */
    public Path home() {
        return home;
    }

    public Path workspaceRoot() {
        return workspaceRoot;
    }

    public Path datasetDir() {
        return datasetDir;
    }

    public Path healrtDir() {
        return healrtDir;
    }

    /** Where the {@code hbdata} package lives: its PYTHONPATH entry. */
    public Path datasetTools() {
        return datasetTools;
    }
}
