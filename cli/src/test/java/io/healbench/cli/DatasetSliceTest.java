package io.healbench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.testsupport.TestInstances;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DatasetSliceTest {

    @TempDir
    Path dataset;

    private static final String STDLIB = """
            id: ID
            subject: cpython-stdlib@3.11.7
            python: "3.11.7"
            project_roots: [colorsys.py]
            bug_patch: bug.patch
            target_test: test/test_colorsys.py::ColorsysTest::test_hsv_values
            expected_crash:
              type: TypeError
              file: colorsys.py
              function: rgb_to_hsv
              line: 141
            policy: default
            provenance:
              kind: injected
              operator: dropped-conversion
              description: "a DatasetSliceTest instance"
            determinism:
              PYTHONHASHSEED: "0"
            """;

    private static final String TOOLZ = TestInstances.toolzRealBug("ID", "a DatasetSliceTest instance");

    @BeforeEach
    void instances() throws IOException {
        for (String id : List.of("stdlib-a", "stdlib-b")) {
            write(id, STDLIB);
        }
        for (String id : List.of("toolz-a", "toolz-b", "toolz-c")) {
            write(id, TOOLZ);
        }
    }

    private void write(String id, String yaml) throws IOException {
        Path dir = Files.createDirectories(dataset.resolve("instances").resolve(id));
        Files.writeString(dir.resolve("instance.yaml"), yaml.replace("ID", id));
        Files.writeString(dir.resolve("bug.patch"), "--- a/colorsys.py\n+++ b/colorsys.py\n");
        Files.writeString(dir.resolve("fix.patch"), "--- a/toolz/itertoolz.py\n+++ b/toolz/itertoolz.py\n");
        Files.writeString(dir.resolve("test_repro.py"), "def test_it():\n    pass\n");
    }

    private DatasetSlice slice(String... args) {
        String[] command = new String[args.length + 1];
        command[0] = "run";
        System.arraycopy(args, 0, command, 1, args.length);
        return DatasetSlice.resolve(CliArguments.parse(command), dataset);
    }

    @Test
    void withoutOptionsTheWholeDatasetRuns() {
        DatasetSlice slice = slice();
        assertEquals(List.of(), slice.arguments().instanceIds(), "the server runs its whole dataset");
        assertEquals("slice: every instance of the dataset (5)", slice.description());
    }

    @Test
    void aSubjectAndALimitGiveADeterministicSample() {
        DatasetSlice slice = slice("--subject", "toolz", "--limit", "2");
        assertEquals(2, slice.arguments().instanceIds().size());
        assertTrue(slice.arguments().instanceIds().stream().allMatch(id -> id.startsWith("toolz-")), slice.arguments().toString());
        assertEquals("slice: --subject toolz --limit 2: 3 of 5 instances, a sample of 2 (seed 0)", slice.description());
        assertEquals(slice.arguments().instanceIds(), slice("--subject", "toolz", "--limit", "2").arguments().instanceIds());
        assertEquals(0, slice.arguments().limit(), "nothing is left for the server to filter");
    }

    @Test
    void tierAndInstancesCombine() {
        DatasetSlice slice = slice("--instances", "stdlib-b,toolz-c,stdlib-a", "--tier", "injected");
        assertEquals(List.of("stdlib-b", "stdlib-a"), slice.arguments().instanceIds());
        assertEquals("slice: --instances stdlib-b,toolz-c,stdlib-a --tier injected: 2 of 5 instances", slice.description());
        assertEquals(List.of("toolz-a", "toolz-b", "toolz-c"),
                slice("--subject", "debian-source:toolz@0.12.0", "--tier", "real-bug", "--limit", "10").arguments().instanceIds());
    }

    @Test
    void anEmptySelectionOrAnUnknownIdIsAUsageError() {
        CliArguments.UsageException none = assertThrows(CliArguments.UsageException.class, () -> slice("--subject", "jinja2"));
        assertEquals("no instance matches --subject jinja2; the code bases here are cpython-stdlib, toolz", none.getMessage());
        CliArguments.UsageException tier = assertThrows(CliArguments.UsageException.class,
                () -> slice("--subject", "cpython-stdlib", "--tier", "real-bug"));
        assertTrue(tier.getMessage().startsWith("no instance matches --subject cpython-stdlib --tier real-bug"), tier.getMessage());
        CliArguments.UsageException unknown = assertThrows(CliArguments.UsageException.class, () -> slice("--instances", "nope-1"));
        assertTrue(unknown.getMessage().contains("'nope-1'"), unknown.getMessage());
    }

    @Test
    void filtersNeedALocalDataset() {
        Path missing = dataset.resolve("elsewhere");
        CliArguments.UsageException e = assertThrows(CliArguments.UsageException.class,
                () -> DatasetSlice.resolve(CliArguments.parse("run", "--limit", "3"), missing));
        assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());
        DatasetSlice remote = DatasetSlice.resolve(CliArguments.parse("run", "--server", "h:1"), missing);
        assertEquals("slice: every instance of the server's dataset", remote.description());
    }
}
