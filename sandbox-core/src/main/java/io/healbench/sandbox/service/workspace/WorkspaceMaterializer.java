package io.healbench.sandbox.service.workspace;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import io.healbench.common.dataset.Instance;
import io.healbench.sandbox.config.SandboxConfig;
import io.healbench.sandbox.config.SandboxIsolationConfig;
import io.healbench.sandbox.config.SandboxPaths;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxException.Kind;
import io.healbench.sandbox.service.model.Variant;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * Creates a fresh workspace for (instance, variant) with the dataset tooling, the one implementation of subject
 * fetching and workspace layout: {@code python3 -m hbdata materialize} (docs/dataset.md §5) copies the project
 * roots into {@code <ws>/src}, applies the variant's patch, and writes {@code <ws>/plan.json}, which this reads.
 * The pristine subject is never touched.
 */
@ApplicationScoped
public class WorkspaceMaterializer {

    /** How much of the tool's stderr a failure carries. */
    private static final int STDERR_LIMIT = 4000;
    /** The prefix of hbdata's own report of a bad instance, subject or patch, as opposed to a crash of the tool. */
    private static final String TOOL_ERROR = "hbdata materialize: ";
    private static final ObjectMapper PLAN = new ObjectMapper()
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    /** This service's own directory under the workspace root; what a dead service left there is swept at start. */
    private final OwnedDirectory owned;
    private final Path workspaceRoot;
    private final Path home;
    private final Path datasetTools;
    private final String python;
    private final Duration timeout;
    private final WorkspaceQuota quota;

    public WorkspaceMaterializer(SandboxPaths paths, SandboxConfig config, SandboxIsolationConfig isolation) {
        this.owned = OwnedDirectory.claim(paths.workspaceRoot());
        this.workspaceRoot = owned.dir();
        this.home = paths.home();
        this.datasetTools = paths.datasetTools();
        this.python = config.hbdataPython();
        this.timeout = config.materializeTimeout();
        // Only an isolated session is kept off the host's disk; without isolation nothing is capped anyway.
        this.quota = new WorkspaceQuota(isolation.isolation() == SandboxIsolationConfig.Isolation.BWRAP
                ? isolation.limits().workspaceBytes() : 0);
    }

    public Workspace materialize(Instance instance, Variant variant) {
        Path dir = createDirectory();
        try {
            runTool(instance, variant, dir);
            RunPlan plan = PLAN.readValue(dir.resolve("plan.json").toFile(), RunPlan.class);
            return new Workspace(dir, instance, variant, plan);
        } catch (IOException e) {
            delete(dir);
            throw new SandboxException(Kind.INTERNAL, "WORKSPACE_IO", "cannot materialize " + instance.id() + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            delete(dir);
            throw e;
        }
    }

    private void runTool(Instance instance, Variant variant, Path dir) throws IOException {
        List<String> command = List.of(python, "-m", "hbdata", "materialize", "--instance", instance.directory().toString(),
                "--variant", variant.name().toLowerCase(Locale.ROOT), "--workspace", dir.toString());
        // Run from the repository root, so that the tool names files as dataset/instances/<id>/...
        ProcessBuilder builder = new ProcessBuilder(command).directory(home.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("PYTHONPATH", datasetTools.toString());
        builder.environment().put("PYTHONDONTWRITEBYTECODE", "1");
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new SandboxException(Kind.INTERNAL, "MATERIALIZE_UNAVAILABLE", "cannot run " + python + " -m hbdata: " + e.getMessage(), e);
        }
        process.getOutputStream().close();
        CompletableFuture<String> stderr = CompletableFuture.supplyAsync(() -> readLimited(process.getErrorStream()));
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                throw new SandboxException(Kind.DEADLINE_EXCEEDED, "MATERIALIZE_TIMEOUT", "instance " + instance.id()
                        + ": hbdata materialize did not finish within " + timeout.toSeconds() + " s");
            }
            if (process.exitValue() != 0) {
                String report = stderr.get(10, TimeUnit.SECONDS).strip();
                // hbdata reports what is wrong with the instance, its subject or its patch in one prefixed
                // message; anything else (a traceback) is a fault of the tool, not of the request.
                boolean toolReport = report.startsWith(TOOL_ERROR);
                throw new SandboxException(toolReport ? Kind.FAILED_PRECONDITION : Kind.INTERNAL,
                        toolReport ? "MATERIALIZE_FAILED" : "MATERIALIZE_CRASHED",
                        "instance " + instance.id() + " (" + variant + "): " + (toolReport ? report.substring(TOOL_ERROR.length())
                                : "hbdata materialize exited with status " + process.exitValue() + ": " + report));
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new SandboxException(Kind.INTERNAL, "INTERRUPTED", "interrupted while materializing " + instance.id(), e);
        } catch (ExecutionException | TimeoutException e) {
            throw new SandboxException(Kind.INTERNAL, "MATERIALIZE_CRASHED", "instance " + instance.id()
                    + ": hbdata materialize failed with status " + process.exitValue() + " and no readable report", e);
        }
    }

    private static String readLimited(InputStream in) {
        try (in) {
            byte[] all = in.readAllBytes();
            String text = new String(all, StandardCharsets.UTF_8);
            return text.length() > STDERR_LIMIT ? "..." + text.substring(text.length() - STDERR_LIMIT) : text;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Removes a workspace and everything in it, following no symlink; missing directories are fine. */
    public void delete(Path dir) {
        try {
            WorkspaceQuota.unmount(dir);
            TreeDeletion.deleteTree(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete workspace " + dir, e);
        }
    }

    /** This service's own directory under the workspace root: its workspaces, and nothing of another service's. */
    public Path workspaceDirectory() {
        return workspaceRoot;
    }

    @PreDestroy
    void release() {
        owned.release();
    }

    private Path createDirectory() {
        try {
            Files.createDirectories(workspaceRoot);
            // Short names: the control socket path must stay under the 108-byte sun_path limit.
            Path dir = workspaceRoot.resolve(UUID.randomUUID().toString().substring(0, 18));
            Files.createDirectory(dir);
            quota.mount(dir);
            return dir;
        } catch (IOException e) {
            throw new SandboxException(Kind.INTERNAL, "WORKSPACE_IO", "cannot create a workspace under " + workspaceRoot + ": " + e.getMessage(), e);
        }
    }
}
