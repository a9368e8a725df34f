package io.healbench.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.common.dataset.Instance;
import io.healbench.common.dataset.InstanceCatalog;
import io.healbench.common.dataset.Subject;
import io.healbench.sandbox.config.SandboxPaths;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.model.Variant;
import io.healbench.sandbox.service.workspace.Workspace;
import io.healbench.sandbox.service.workspace.WorkspaceMaterializer;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

@QuarkusTest
class WorkspaceMaterializerTest {

    static final String INSTANCE = "sandbox-colorsys-typeerror-rgb-to-hsv";
    static final Path PRISTINE = Path.of("/root/.pyenv/versions/3.11.7/lib/python3.11/colorsys.py");

    @Inject
    WorkspaceMaterializer materializer;

    @Inject
    SandboxPaths paths;

    private Instance instance(String id) {
        return InstanceCatalog.parse(paths.datasetDir().resolve("instances").resolve(id).resolve("instance.yaml"));
    }

    @Test
    void buggyWorkspaceHoldsTheRootsWithTheBugPatchApplied() throws IOException {
        Workspace ws = materializer.materialize(instance(INSTANCE), Variant.BUGGY);
        try {
            assertTrue(ws.dir().startsWith(paths.workspaceRoot()), ws.dir().toString());
            Path copy = ws.sourceDir().resolve("colorsys.py");
            String patched = Files.readString(copy);
            assertTrue(patched.contains("h = 4.0+gc-str(rc)"), "the bug patch must be applied");
            assertFalse(Files.readString(PRISTINE).contains("str(rc)"), "the pristine stdlib must stay untouched");
            try (Stream<Path> files = Files.list(ws.sourceDir())) {
                assertEquals(List.of("colorsys.py"), files.map(p -> p.getFileName().toString()).toList(), "only the project roots, no .orig/.rej");
            }
        } finally {
            materializer.delete(ws.dir());
        }
        assertFalse(Files.exists(ws.dir()));
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
        Instance base = instance(INSTANCE);
        Instance htmlPackage = new Instance("sandbox-html-package", base.subject(), base.python(), List.of("html"), null, null,
                base.targetTest(), base.expectedCrash(), base.policy(), Map.of(), Map.of(), base.directory(), base.digest());
        Workspace ws = materializer.materialize(htmlPackage, Variant.REFERENCE);
        try {
            assertTrue(Files.isRegularFile(ws.sourceDir().resolve("html/__init__.py")));
            assertTrue(Files.isRegularFile(ws.sourceDir().resolve("html/parser.py")));
            assertFalse(Files.exists(ws.sourceDir().resolve("html/__pycache__")), "bytecode caches are not copied");
        } finally {
            materializer.delete(ws.dir());
        }
    }

    @Test
    void aPatchThatDoesNotApplyFailsClearlyAndLeavesNoWorkspace() throws IOException {
        long before = workspaceCount();
        SandboxException e = assertThrows(SandboxException.class,
                () -> materializer.materialize(instance("sandbox-colorsys-bad-patch"), Variant.BUGGY));
        assertEquals(SandboxException.Kind.FAILED_PRECONDITION, e.kind());
        assertEquals("PATCH_FAILED", e.reason());
        assertTrue(e.getMessage().contains("bug.patch") && e.getMessage().contains("does not apply"), e.getMessage());
        assertTrue(e.getMessage().contains("FAILED"), "patch's own report is included: " + e.getMessage());
        assertEquals(before, workspaceCount(), "the failed workspace is removed");
    }

    @Test
    void missingInterpreterAndUnsupportedSubjectsAreRefused() {
        Instance base = instance(INSTANCE);
        Instance missing = new Instance("sandbox-missing-python", Subject.parse("cpython-stdlib@3.11.99"), "3.11.99", base.projectRoots(),
                base.bugPatch(), null, base.targetTest(), base.expectedCrash(), base.policy(), Map.of(), Map.of(), base.directory(), base.digest());
        SandboxException e = assertThrows(SandboxException.class, () -> materializer.materialize(missing, Variant.BUGGY));
        assertEquals(SandboxException.Kind.FAILED_PRECONDITION, e.kind());
        assertEquals("INTERPRETER_MISSING", e.reason());
        assertTrue(e.getMessage().contains("3.11.99"), e.getMessage());

        Instance debian = new Instance("sandbox-debian", Subject.parse("debian-source:toolz@0.12.0"), "3.11.2", List.of("toolz"),
                base.bugPatch(), null, "toolz/tests/test_x.py::test_y", base.expectedCrash(), base.policy(), Map.of(), Map.of(), base.directory(), base.digest());
        SandboxException u = assertThrows(SandboxException.class, () -> materializer.materialize(debian, Variant.BUGGY));
        assertEquals(SandboxException.Kind.UNIMPLEMENTED, u.kind());
        assertTrue(u.getMessage().contains("debian-source"), u.getMessage());
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
