package io.healbench.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.healbench.common.dataset.Instance;
import io.healbench.common.dataset.InstanceCatalog;
import io.healbench.common.guard.GuardMode;
import io.healbench.sandbox.config.SandboxPaths;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.model.Variant;
import io.healbench.sandbox.service.process.LaunchRequest;
import io.healbench.sandbox.service.reference.UnattendedRun;
import io.healbench.sandbox.service.session.HealrtInvocation;
import io.healbench.sandbox.service.session.SandboxSessions;
import io.healbench.sandbox.service.workspace.RunPlan;
import io.healbench.sandbox.service.workspace.Workspace;
import io.healbench.sandbox.service.workspace.WorkspaceMaterializer;
import io.healbench.testsupport.RabbitMqTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Workspaces made by the dataset tooling ({@code python3 -m hbdata materialize}) and run from their plan:
 * stdlib instances of the test dataset, and instances written here (package roots, a real-bug instance with its
 * own test and fix patch, a {@code local:} subject that is not the stdlib).
 */
@QuarkusTest
@WithTestResource(RabbitMqTestResource.class)
class WorkspaceMaterializerTest {

    static final String INSTANCE = "sandbox-colorsys-typeerror-rgb-to-hsv";
    static final Path STDLIB = Path.of("/root/.pyenv/versions/3.11.7/lib/python3.11");
    static final Path PRISTINE = STDLIB.resolve("colorsys.py");

    @Inject
    WorkspaceMaterializer materializer;

    @Inject
    HealrtInvocation invocation;

    @Inject
    SandboxSessions sessions;

    @Inject
    SandboxPaths paths;

    /** A dataset of instances written by the tests, readable by the sandbox's unprivileged session users. */
    private Path scratch;

    @BeforeEach
    void scratch() throws IOException {
        scratch = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"), "healbench", "test-materializer-" + UUID.randomUUID()));
        Files.setPosixFilePermissions(scratch, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @AfterEach
    void removeScratch() {
        materializer.delete(scratch);
    }

    private Instance instance(String id) {
        return InstanceCatalog.parse(paths.datasetDir().resolve("instances").resolve(id).resolve("instance.yaml"));
    }

    /** Writes {@code <scratch>/instances/<id>/} with the yaml and the given files (name, content pairs). */
    private Instance write(String id, String yaml, String... files) throws IOException {
        Path dir = Files.createDirectories(scratch.resolve("instances").resolve(id));
        Files.writeString(dir.resolve("instance.yaml"), yaml);
        for (int i = 0; i < files.length; i += 2) {
            Files.createDirectories(dir.resolve(files[i]).getParent());
            Files.writeString(dir.resolve(files[i]), files[i + 1]);
        }
        return InstanceCatalog.parse(dir.resolve("instance.yaml"));
    }

    private static String yaml(String id, String subject, String roots, String patch, String target, String origin, String crashFile,
                               String kind) {
        String provenance = kind.equals("real-bug")
                ? "  kind: real-bug\n  issue: test-1\n  fixed_in: \"0\"\n"
                : "  kind: injected\n  operator: dropped-conversion\n";
        return "id: " + id + "\nsubject: " + subject + "\npython: \"3.11.7\"\nproject_roots: [" + roots + "]\n" + patch + "\n"
                + "target_test: " + target + "\ntarget_test_origin: " + origin + "\n"
                + "expected_crash:\n  type: TypeError\n  file: " + crashFile + "\n  function: f\n  line: 2\npolicy: default\n"
                + "provenance:\n" + provenance + "  description: \"a WorkspaceMaterializerTest instance\"\n"
                + "determinism:\n  PYTHONHASHSEED: \"0\"\n";
    }

    @Test
    void buggyWorkspaceHoldsTheRootsWithTheBugPatchAppliedAndItsPlan() throws IOException {
        Instance instance = instance(INSTANCE);
        Workspace ws = materializer.materialize(instance, Variant.BUGGY);
        try {
            assertTrue(ws.dir().startsWith(paths.workspaceRoot()), ws.dir().toString());
            String patched = Files.readString(ws.sourceDir().resolve("colorsys.py"));
            assertTrue(patched.contains("h = 4.0+gc-str(rc)"), "the bug patch must be applied");
            assertFalse(Files.readString(PRISTINE).contains("str(rc)"), "the pristine stdlib must stay untouched");
            try (Stream<Path> files = Files.list(ws.sourceDir())) {
                assertEquals(List.of("colorsys.py"), files.map(p -> p.getFileName().toString()).toList(), "only the project roots, no .orig/.rej");
            }
            RunPlan plan = ws.plan();
            assertTrue(Files.isRegularFile(ws.dir().resolve("plan.json")));
            assertEquals(instance.digest(), plan.digest(), "Java and hbdata digest an instance alike");
            assertEquals("/root/.pyenv/versions/3.11.7/bin/python", plan.python());
            assertEquals(ws.sourceDir().toString(), plan.sourceDir());
            assertEquals(List.of("colorsys"), plan.projectModules());
            assertEquals(STDLIB.resolve("test/test_colorsys.py") + "::ColorsysTest::test_hsv_values", plan.targetTest());
            assertEquals("0", plan.env().get("PYTHONHASHSEED"));
        } finally {
            materializer.delete(ws.dir());
        }
        assertFalse(Files.exists(ws.dir()));
    }

    @Test
    void theHealrtSpecAndLaunchComeFromThePlan() throws IOException {
        Workspace ws = materializer.materialize(instance(INSTANCE), Variant.BUGGY);
        try {
            LaunchRequest launch = invocation.prepare(ws, true, GuardMode.ENFORCE, false);
            RunPlan plan = ws.plan();
            assertEquals(List.of(plan.python(), "-m", "healrt", "--spec", ws.runtimeSpec().toString()), launch.command());
            assertEquals(String.join(":", Stream.concat(Stream.of(paths.healrtDir().toString()), plan.pythonpath().stream()).toList()),
                    launch.environment().get("PYTHONPATH"));
            assertEquals("0", launch.environment().get("PYTHONHASHSEED"));
            assertTrue(launch.readable().contains(STDLIB), launch.readable().toString());
            assertTrue(launch.readable().contains(paths.healrtDir()), launch.readable().toString());
            JsonNode spec = new ObjectMapper().readTree(ws.runtimeSpec().toFile());
            assertEquals(plan.targetTest(), spec.get("target_test").asText());
            assertEquals(plan.pytestArgs().size(), spec.get("pytest_args").size());
            assertEquals(plan.sourceDir(), spec.get("source_dir").asText());
            assertTrue(spec.get("intercept").asBoolean());
        } finally {
            materializer.delete(ws.dir());
        }
    }

    /** healrt's dynamic stage gets the policy the static stage analyses with: the subject's merged onto default.yaml. */
    @Test
    void theSpecCarriesTheInstancesMergedPolicyUnlessTheGuardIsOff() throws IOException {
        Instance stdlib = write("sandbox-subject-policy", yaml("sandbox-subject-policy", "cpython-stdlib@3.11.7", "colorsys.py",
                "bug_patch: bug.patch", "test/test_colorsys.py::ColorsysTest::test_hsv_values", "subject", "colorsys.py", "injected")
                .replace("policy: default", "policy: cpython-stdlib"), "bug.patch", "--- a/colorsys.py\n+++ b/colorsys.py\n");
        assertEquals("cpython-stdlib", stdlib.policy());
        Workspace ws = materializer.materialize(stdlib, Variant.REFERENCE);
        try {
            invocation.prepare(ws, true, GuardMode.OBSERVE, false);
            JsonNode guard = new ObjectMapper().readTree(ws.runtimeSpec().toFile()).get("guard");
            assertEquals("observe", guard.get("mode").asText());
            JsonNode policy = guard.get("policy");
            assertEquals("cpython-stdlib", policy.get("id").asText());
            List<String> fileWrites = policy.get("operations").get("file_write").findValuesAsText("op");
            assertEquals("open", fileWrites.get(0), "default.yaml's entries first");
            assertTrue(fileWrites.contains("gzip.open"), "the subject's own entries follow: " + fileWrites);
            JsonNode gzipOpen = policy.get("operations").get("file_write").get(fileWrites.indexOf("gzip.open"));
            assertEquals("mode contains any of w a x +", gzipOpen.get("when").asText());
            assertEquals(0, gzipOpen.get("index").asInt());
            assertTrue(policy.get("operations").has("process"), "default's categories stay");

            invocation.prepare(ws, false, GuardMode.OFF, false);
            JsonNode off = new ObjectMapper().readTree(ws.runtimeSpec().toFile()).get("guard");
            assertEquals("off", off.get("mode").asText());
            assertFalse(off.has("policy"), "a run without the guard needs no policy");
        } finally {
            materializer.delete(ws.dir());
        }
    }

    @Test
    void referenceWithoutFixPatchIsThePristineSubject() throws IOException {
        Workspace ws = materializer.materialize(instance(INSTANCE), Variant.REFERENCE);
        try {
            assertEquals(Files.readString(PRISTINE), Files.readString(ws.sourceDir().resolve("colorsys.py")));
        } finally {
            materializer.delete(ws.dir());
        }
    }

    @Test
    void packageRootsAreCopiedWhole() throws IOException {
        Instance html = write("sandbox-html-package", yaml("sandbox-html-package", "cpython-stdlib@3.11.7", "html", "bug_patch: bug.patch",
                "test/test_htmlparser.py::HTMLParserTestCase::test_simple_html", "subject", "html/parser.py", "injected"),
                "bug.patch", "--- a/html/parser.py\n+++ b/html/parser.py\n");
        Workspace ws = materializer.materialize(html, Variant.REFERENCE);
        try {
            assertTrue(Files.isRegularFile(ws.sourceDir().resolve("html/__init__.py")));
            assertTrue(Files.isRegularFile(ws.sourceDir().resolve("html/parser.py")));
            assertFalse(Files.exists(ws.sourceDir().resolve("html/__pycache__")), "bytecode caches are not copied");
        } finally {
            materializer.delete(ws.dir());
        }
    }

    @Test
    void aRealBugInstanceRunsItsOwnTestAndItsReferenceHasTheFix() throws IOException {
        String fix = "--- a/colorsys.py\n+++ b/colorsys.py\n@@ -23,2 +23,3 @@\n \n+# fixed by WorkspaceMaterializerTest\n __all__ = [\"rgb_to_yiq\",\"yiq_to_rgb\",\"rgb_to_hls\",\"hls_to_rgb\",\n";
        Instance real = write("sandbox-real-bug", yaml("sandbox-real-bug", "cpython-stdlib@3.11.7", "colorsys.py", "fix_patch: fix.patch",
                "test_repro.py::test_it", "instance", "colorsys.py", "real-bug"),
                "fix.patch", fix, "test_repro.py", "import colorsys\n\ndef test_it():\n    assert colorsys.rgb_to_hsv(0, 0, 1)[0] > 0\n");
        Workspace buggy = materializer.materialize(real, Variant.BUGGY);
        Workspace reference = materializer.materialize(real, Variant.REFERENCE);
        try {
            assertEquals(Files.readString(PRISTINE), Files.readString(buggy.sourceDir().resolve("colorsys.py")), "BUGGY is the pristine subject");
            assertTrue(Files.readString(reference.sourceDir().resolve("colorsys.py")).contains("# fixed by WorkspaceMaterializerTest"));
            Path ownTest = reference.dir().resolve("tests/test_repro.py");
            assertTrue(Files.isRegularFile(ownTest), "the instance's own test is copied into the workspace");
            assertEquals(ownTest + "::test_it", reference.plan().targetTest());
        } finally {
            materializer.delete(buggy.dir());
            materializer.delete(reference.dir());
        }
    }

    /**
     * A subject that is not the stdlib, run end to end under the real isolation: only the plan says where it lives. Its
     * test also looks, from inside the BUGGY run, for the answer key of this injected instance: the pristine mod.py at the
     * subject root, and its bytecode, must read as what the run imports and as nothing.
     */
    @Test
    void aLocalSubjectRunsFromItsPlan() throws IOException {
        Path subject = Files.createDirectories(scratch.resolve("subject"));
        Files.createDirectories(subject.resolve("mypkg/__pycache__"));
        Files.createDirectories(subject.resolve("tests"));
        Files.writeString(subject.resolve("mypkg/__init__.py"), "");
        Files.writeString(subject.resolve("mypkg/mod.py"), "def f(x):\n    return x + 1\n");
        Files.writeString(subject.resolve("mypkg/__pycache__/mod.cpython-311.pyc"), "PRISTINE BYTECODE");
        Files.writeString(subject.resolve("mypkg/hint.py"), "PRISTINE HINT\n");
        Files.writeString(subject.resolve("tests/test_mod.py"), "import glob, os\nimport mypkg.mod\nfrom mypkg.mod import f\n\n"
                + "ROOT = r'" + subject + "'\n\ndef test_f():\n"
                + "    imported = open(mypkg.mod.__file__).read()\n"
                + "    assert open(os.path.join(ROOT, 'mypkg/mod.py')).read() == imported, 'PRISTINE SOURCE VISIBLE'\n"
                + "    if 'str(x)' in imported:\n"
                + "        for pyc in glob.glob(os.path.join(ROOT, 'mypkg/__pycache__/mod.*.pyc')):\n"
                + "            assert open(pyc).read() == '', 'PRISTINE BYTECODE VISIBLE'\n"
                + "        assert 'PRISTINE' not in open(os.path.join(ROOT, 'mypkg/hint.py')).read(), 'DELETED FILE VISIBLE'\n"
                + "    assert f(1) == 2\n");
        // The bug also deletes a file: its pristine copy is named only on the header's `---` side.
        String bug = "--- a/mypkg/mod.py\n+++ b/mypkg/mod.py\n@@ -1,2 +1,2 @@\n def f(x):\n-    return x + 1\n+    return str(x) + 1\n"
                + "--- a/mypkg/hint.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-PRISTINE HINT\n";
        Instance local = write("sandbox-local-subject", yaml("sandbox-local-subject", "local:" + subject, "mypkg", "bug_patch: bug.patch",
                "tests/test_mod.py::test_f", "subject", "mypkg/mod.py", "injected"), "bug.patch", bug);
        assertEquals("subject", local.codebase(), "a local subject's code base is its directory name");

        UnattendedRun buggy = sessions.runUnattended(local, Variant.BUGGY);
        assertTrue(buggy.reported(), buggy.toString());
        assertFalse(buggy.outcome().passed(), buggy.toString());
        assertTrue(buggy.outcome().detail().contains("TypeError") && !buggy.outcome().detail().contains("VISIBLE"),
                "the bug's crash, with the answer key covered: " + buggy.outcome().detail());
        assertTrue(buggy.outcome().trace().keySet().stream().anyMatch(k -> k.startsWith("mypkg/mod.py:")), buggy.toString());
        UnattendedRun reference = sessions.runUnattended(local, Variant.REFERENCE);
        assertTrue(reference.outcome().passed(), reference.toString());
    }

    @Test
    void aPatchThatDoesNotApplyFailsClearlyAndLeavesNoWorkspace() throws IOException {
        long before = workspaceCount();
        SandboxException e = assertThrows(SandboxException.class,
                () -> materializer.materialize(instance("sandbox-colorsys-bad-patch"), Variant.BUGGY));
        assertEquals(SandboxException.Kind.FAILED_PRECONDITION, e.kind());
        assertEquals("MATERIALIZE_FAILED", e.reason());
        assertTrue(e.getMessage().contains("bug.patch") && e.getMessage().contains("does not apply"), e.getMessage());
        assertTrue(e.getMessage().contains("FAILED"), "patch's own report is included: " + e.getMessage());
        assertEquals(before, workspaceCount(), "the failed workspace is removed");
    }

    @Test
    void aProjectRootMissingFromTheSubjectIsTheInstancesFault() throws IOException {
        Instance missing = write("sandbox-missing-root", yaml("sandbox-missing-root", "cpython-stdlib@3.11.7", "no_such_module.py",
                "bug_patch: bug.patch", "test/test_colorsys.py::ColorsysTest::test_hsv_values", "subject", "no_such_module.py", "injected"),
                "bug.patch", "--- a/no_such_module.py\n+++ b/no_such_module.py\n");
        SandboxException e = assertThrows(SandboxException.class, () -> materializer.materialize(missing, Variant.BUGGY));
        assertEquals(SandboxException.Kind.FAILED_PRECONDITION, e.kind());
        assertTrue(e.getMessage().contains("project_roots") && e.getMessage().contains("no_such_module.py"), e.getMessage());
    }

    private long workspaceCount() throws IOException {
        if (!Files.isDirectory(paths.workspaceRoot())) {
            return 0;
        }
        try (Stream<Path> dirs = Files.list(paths.workspaceRoot())) {
            return dirs.count();
        }
    }
}
