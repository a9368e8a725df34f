package io.healbench.sandbox.service.session;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.healbench.common.dataset.Instance;
import io.healbench.common.dataset.Subject;
import io.healbench.common.guard.GuardMode;
import io.healbench.common.provenance.Provenance;
import io.healbench.sandbox.config.SandboxConfig;
import io.healbench.sandbox.config.SandboxPaths;
import io.healbench.sandbox.service.heal.ProtectedPolicies;
import io.healbench.sandbox.service.model.Variant;
import io.healbench.sandbox.service.process.LaunchRequest;
import io.healbench.sandbox.service.workspace.RunPlan;
import io.healbench.sandbox.service.workspace.Workspace;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * How a workspace is run under healrt: writes {@code healrt-spec.json} (docs/control-protocol.md) from the
 * workspace's run plan (docs/dataset.md §5), as hbdata's runner does, and says which interpreter to start with
 * which environment and what it must be able to read.
 */
@ApplicationScoped
public class HealrtInvocation {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final Path healrtDir;
    private final int maxHealPoints;
    private final Duration probeTimeout;
    private final Duration healTimeout;
    private final ProtectedPolicies policies;
    private final SharedCodeCache codeCache;

    public HealrtInvocation(SandboxPaths paths, SandboxConfig config, ProtectedPolicies policies, SharedCodeCache codeCache) {
        this.healrtDir = paths.healrtDir();
        this.policies = policies;
        this.codeCache = codeCache;
        this.maxHealPoints = config.maxHealPoints();
        this.probeTimeout = config.probeTimeout();
        this.healTimeout = config.healTimeout();
    }

    /**
     * Writes the workspace's healrt spec from its run plan and says how to start the run. Every run reads the instance's
     * partition of the shared code cache, if it has one, read-only (an injected instance's BUGGY run a view of it without
     * its answer); only a warm-up writes rewrites, to its own {@link #privateCodeCache}, which the sandbox publishes
     * after the run.
     */
    public LaunchRequest prepare(Workspace workspace, boolean intercept, GuardMode guardMode, boolean warmUp) throws IOException {
        RunPlan plan = workspace.plan();
        Map<String, String> env = new LinkedHashMap<>(plan.env());
        List<String> pythonpath = new ArrayList<>();
        pythonpath.add(healrtDir.toString());
        pythonpath.addAll(plan.pythonpath());
        env.put("PYTHONPATH", String.join(":", pythonpath));
        env.put("HEALRT_CONTROL", workspace.controlSocket().toString());

        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("source_dir", plan.sourceDir());
        spec.put("project_modules", plan.projectModules());
        spec.put("pytest_args", plan.pytestArgs());
        spec.put("target_test", plan.targetTest());
        spec.put("intercept", intercept);
        spec.put("guard", guard(workspace, guardMode));
        spec.put("max_heal_points", maxHealPoints);
        spec.put("probe_timeout_s", probeTimeout.toMillis() / 1000.0);
        spec.put("heal_timeout_s", healTimeout.toMillis() / 1000.0);
        spec.put("outcome_file", workspace.outcomeFile().toString());
        // An injected instance's BUGGY run: the pristine versions of these files, at the subject root, are its answer.
        Set<String> answer = workspace.variant() == Variant.BUGGY && workspace.instance().bugPatch() != null
                ? bugPatchedFiles(workspace) : Set.of();
        Optional<Path> shared = codeCache.partition(workspace.instance()).filter(Files::isDirectory);
        if (shared.isPresent() && !answer.isEmpty()) {
            Path view = workspace.dir().resolve(".healrt-shared");
            SharedCodeCache.viewWithout(shared.get(), pristineDigests(workspace, answer), view);
            shared = Optional.of(view);
        }
        shared.ifPresent(dir -> spec.put("shared_code_cache", dir.toString()));
        spec.put("code_cache", warmUp ? privateCodeCache(workspace).toString() : "");
        JSON.writeValue(workspace.runtimeSpec().toFile(), spec);

        List<String> command = List.of(plan.python(), "-m", "healrt", "--spec", workspace.runtimeSpec().toString());
        // What the run reads besides the system: the subject, its dependencies, the interpreter (the plan says), the runtime.
        List<Path> readable = new ArrayList<>();
        plan.readable().forEach(path -> readable.add(Path.of(path)));
        readable.add(healrtDir);
        shared.ifPresent(readable::add);
        // Read-only inside: what agents read of the sources (as root, while the session runs) cannot be swapped under
        // them for a link, a FIFO or a rewritten test.
        readable.add(workspace.sourceDir());
        return new LaunchRequest(command, env, workspace.dir(), readable, pristineFilesCovered(workspace, answer));
    }

    /**
     * An injected instance's BUGGY run reads the subject root, and there the files its bug patch changes ({@code answer})
     * are pristine: the REFERENCE, its answer key. Each is shown with the workspace's BUGGY copy instead, and its bytecode (a wheel's
     * environment keeps pip's) as an empty file. Not for the stdlib: the harness imports the interpreter's own library
     * before the project is swapped in, and must get the pristine modules (docs/sandbox-isolation.md, known limits).
     */
    private static Map<Path, Path> pristineFilesCovered(Workspace workspace, Set<String> answer) throws IOException {
        if (answer.isEmpty() || workspace.instance().subject().kind().equals(Subject.CPYTHON_STDLIB)) {
            return Map.of();
        }
        // A regular empty file, not /dev/null: bwrap mounts binds nodev, and a device node there cannot be opened.
        Path empty = workspace.dir().resolve(".covered-empty");
        Files.write(empty, new byte[0]);
        Path subjectRoot = Path.of(workspace.plan().subjectRoot());
        Map<Path, Path> covered = new TreeMap<>();
        for (String relative : answer) {
            Path pristine = subjectRoot.resolve(relative);
            Path buggy = workspace.sourceDir().resolve(relative);
            covered.put(pristine, Files.isRegularFile(buggy) ? buggy : empty);
            String stem = pristine.getFileName().toString().replaceFirst("\\.py$", "");
            Path bytecode = pristine.resolveSibling("__pycache__");
            if (Files.isDirectory(bytecode)) {
                try (DirectoryStream<Path> compiled = Files.newDirectoryStream(bytecode, stem + ".*.pyc")) {
                    compiled.forEach(file -> covered.put(file, empty));
                }
            }
        }
        return covered;
    }

    /**
     * The files the bug patch names, relative to both the subject root and the workspace's sources: both sides of each
     * file header, as `patch -p1` reads them (any first component, as hbdata's sourcetree.patched_files), since a file
     * the bug deletes is just as much the answer as one it changes.
     */
    private static Set<String> bugPatchedFiles(Workspace workspace) throws IOException {
        Instance instance = workspace.instance();
        Path subjectRoot = Path.of(workspace.plan().subjectRoot());
        Set<String> files = new TreeSet<>();
        for (String line : Files.readAllLines(instance.file(instance.bugPatch()))) {
            if (!line.startsWith("--- ") && !line.startsWith("+++ ")) {
                continue;
            }
            String name = line.substring(4).split("\t", 2)[0].strip();
            if (name.equals("/dev/null")) {
                continue;
            }
            String relative = name.substring(name.indexOf('/') + 1);
            if (!subjectRoot.resolve(relative).normalize().startsWith(subjectRoot)
                    || !workspace.sourceDir().resolve(relative).normalize().startsWith(workspace.sourceDir())) {
                continue; // hbdata's patch run refuses such a path before any session starts
            }
            files.add(Path.of(relative).normalize().toString());
        }
        return files;
    }

    /**
     * The sha256 of each pristine file the bug patch changes ({@code answer}), as it stands at the subject root: the
     * shared code cache's entries rewritten from these are left out of the session's view (SharedCodeCache#viewWithout).
     */
    private static Set<String> pristineDigests(Workspace workspace, Set<String> answer) throws IOException {
        Path subjectRoot = Path.of(workspace.plan().subjectRoot());
        Set<String> digests = new TreeSet<>();
        for (String relative : answer) {
            Path pristine = subjectRoot.resolve(relative);
            if (Files.isRegularFile(pristine)) {
                digests.add(Provenance.sha256(Files.readAllBytes(pristine)));
            }
        }
        return digests;
    }

    /** Where a warm-up's healrt writes its rewrites: inside the workspace, the one directory the run may write. */
    public static Path privateCodeCache(Workspace workspace) {
        return workspace.dir().resolve(".healrt-code");
    }

    /**
     * The dynamic stage's settings: the mode and, unless it is off, the instance's merged policy (the one the static
     * stage analyses with), so both stages protect the same operations.
     */
    private Map<String, Object> guard(Workspace workspace, GuardMode guardMode) throws IOException {
        Map<String, Object> guard = new LinkedHashMap<>();
        guard.put("mode", guardMode.wireName());
        if (guardMode != GuardMode.OFF) {
            guard.put("policy", JSON.readTree(policies.mergedJson(workspace.instance().policy())));
        }
        return guard;
    }
}
