package io.healbench.common.dataset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InstanceCatalogTest {

    @TempDir
    Path dataset;

    private static final String VALID = """
            id: demo-instance
            subject: cpython-stdlib@3.11.7
            python: "3.11.7"
            project_roots: [configparser.py]
            bug_patch: bug.patch
            target_test: test/test_configparser.py::Case::test_x
            expected_crash: {type: KeyError, file: configparser.py, function: get, line: 10}
            provenance: {kind: injected, operator: get-to-subscript}
            """;

    private Path write(String id, String yaml) throws IOException {
        Path dir = Files.createDirectories(dataset.resolve("instances").resolve(id));
        Files.writeString(dir.resolve("instance.yaml"), yaml);
        Files.writeString(dir.resolve("bug.patch"), "--- a/x\n+++ b/x\n");
        return dir;
    }

    @Test
    void loadsAValidInstanceWithADigest() throws IOException {
        write("demo-instance", VALID);
        Instance instance = InstanceCatalog.load(dataset).find("demo-instance").orElseThrow();
        assertEquals(Subject.CPYTHON_STDLIB, instance.subject().kind());
        assertEquals("3.11.7", instance.subject().version());
        assertEquals("get", instance.expectedCrash().function());
        assertEquals("injected", instance.provenance().get("kind"));
        assertTrue(instance.digest().startsWith("sha256:"));
    }

    @Test
    void digestChangesWithThePatch() throws IOException {
        Path dir = write("demo-instance", VALID);
        String before = InstanceCatalog.load(dataset).all().get(0).digest();
        Files.writeString(dir.resolve("bug.patch"), "--- a/y\n+++ b/y\n");
        assertNotEquals(before, InstanceCatalog.load(dataset).all().get(0).digest());
    }

    @Test
    void malformedInstanceNamesFileAndField() throws IOException {
        write("demo-instance", VALID.replace("python: \"3.11.7\"", "python: three"));
        InstanceFormatException e = assertThrows(InstanceFormatException.class, () -> InstanceCatalog.load(dataset));
        assertEquals("python", e.field());
        assertTrue(e.getMessage().contains("instance.yaml"), e.getMessage());
    }

    @Test
    void missingPatchFileIsReported() throws IOException {
        write("demo-instance", VALID.replace("bug_patch: bug.patch", "bug_patch: nope.patch"));
        InstanceFormatException e = assertThrows(InstanceFormatException.class, () -> InstanceCatalog.load(dataset));
        assertEquals("bug_patch", e.field());
    }

    @Test
    void idMustMatchDirectory() throws IOException {
        write("other-name", VALID);
        InstanceFormatException e = assertThrows(InstanceFormatException.class, () -> InstanceCatalog.load(dataset));
        assertEquals("id", e.field());
    }
}
