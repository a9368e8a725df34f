package io.healbench.sandbox.service.workspace;

import io.healbench.common.dataset.Instance;
import io.healbench.sandbox.config.SandboxPaths;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxException.Kind;
import io.healbench.sandbox.service.model.Variant;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Creates a fresh workspace for (instance, variant): copies the subject's project roots into
 * {@code <ws>/src} and applies the variant's patch there. The pristine subject is never touched.
 */
@ApplicationScoped
public class WorkspaceMaterializer {

    private static final long PATCH_TIMEOUT_SECONDS = 60;

    private final Path workspaceRoot;
    private final SubjectLocator subjects;

    public WorkspaceMaterializer(SandboxPaths paths, SubjectLocator subjects) {
        this.workspaceRoot = paths.workspaceRoot();
        this.subjects = subjects;
    }

    public Workspace materialize(Instance instance, Variant variant) {
        SubjectInstallation subject = subjects.locate(instance);
        for (String root : instance.projectRoots()) {
            if (!Files.exists(subject.subjectRoot().resolve(root))) {
                throw new SandboxException(Kind.FAILED_PRECONDITION, "PROJECT_ROOT_MISSING",
                        "instance " + instance.id() + ": project root '" + root + "' does not exist in " + subject.subjectRoot());
            }
        }
        Path dir = createDirectory();
        Workspace workspace = new Workspace(dir, instance, variant, subject);
        try {
            Files.createDirectories(workspace.sourceDir());
            for (String root : instance.projectRoots()) {
                copy(subject.subjectRoot().resolve(root), workspace.sourceDir().resolve(root));
            }
            String patch = variant == Variant.BUGGY ? instance.bugPatch() : instance.fixPatch();
            if (patch != null) {
                applyPatch(instance, instance.file(patch), workspace.sourceDir());
            } else if (variant == Variant.BUGGY) {
                throw new SandboxException(Kind.FAILED_PRECONDITION, "BUG_PATCH_MISSING",
                        "instance " + instance.id() + " has no bug_patch: the subject ships the bug, which needs a fetched subject, not "
                                + instance.subject());
            }
            return workspace;
        } catch (IOException e) {
            delete(dir);
            throw new SandboxException(Kind.INTERNAL, "WORKSPACE_IO", "cannot materialize " + instance.id() + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            delete(dir);
            throw e;
        }
    }

    /** Removes a workspace and everything in it; missing directories are fine. */
    public void delete(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete workspace " + dir, e);
        }
    }

    private Path createDirectory() {
        try {
            Files.createDirectories(workspaceRoot);
            // Short names: the control socket path must stay under the 108-byte sun_path limit.
            Path dir = workspaceRoot.resolve(UUID.randomUUID().toString().substring(0, 18));
            Files.createDirectory(dir);
            return dir;
        } catch (IOException e) {
            throw new SandboxException(Kind.INTERNAL, "WORKSPACE_IO", "cannot create a workspace under " + workspaceRoot + ": " + e.getMessage(), e);
        }
    }

    private static void copy(Path from, Path to) throws IOException {
        if (Files.isRegularFile(from)) {
            Files.createDirectories(to.getParent());
            Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
            return;
        }
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                if (dir.getFileName().toString().equals("__pycache__")) {
                    return FileVisitResult.SKIP_SUBTREE;
                }
                Files.createDirectories(to.resolve(from.relativize(dir).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.copy(file, to.resolve(from.relativize(file).toString()), StandardCopyOption.REPLACE_EXISTING);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static void applyPatch(Instance instance, Path patch, Path sourceDir) throws IOException {
        Process process = new ProcessBuilder(List.of("patch", "-p1", "--batch", "--forward", "--no-backup-if-mismatch", "-d", sourceDir.toString(), "-i", patch.toString()))
                .redirectErrorStream(true)
                .start();
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        try {
            if (!process.waitFor(PATCH_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new SandboxException(Kind.FAILED_PRECONDITION, "PATCH_FAILED", "instance " + instance.id() + ": patch " + patch.getFileName() + " timed out");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SandboxException(Kind.INTERNAL, "INTERRUPTED", "interrupted while applying " + patch, e);
        }
        if (process.exitValue() != 0) {
            throw new SandboxException(Kind.FAILED_PRECONDITION, "PATCH_FAILED",
                    "instance " + instance.id() + ": " + patch.getFileName() + " does not apply to " + instance.subject()
                            + " (patch exit " + process.exitValue() + "): " + output);
        }
    }
}
