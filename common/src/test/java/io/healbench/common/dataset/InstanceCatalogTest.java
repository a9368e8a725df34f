package io.healbench.common.dataset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.testsupport.TestInstances;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
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
            expected_crash:
              type: KeyError
              file: configparser.py
              function: get
              line: 10
            policy: default
            provenance:
              kind: injected
              operator: get-to-subscript
              description: "a test instance"
            determinism:
              PYTHONHASHSEED: "0"
            """;

    private static final String REAL_BUG = TestInstances.toolzRealBug("toolz-real", "a real bug");

    private Path write(String id, String yaml) throws IOException {
        Path dir = Files.createDirectories(dataset.resolve("instances").resolve(id));
        Files.writeString(dir.resolve("instance.yaml"), yaml);
        Files.writeString(dir.resolve("bug.patch"), "--- a/x\n+++ b/x\n");
        Files.writeString(dir.resolve("fix.patch"), "--- a/y\n+++ b/y\n");
        Files.writeString(dir.resolve("test_repro.py"), "def test_it():\n    pass\n");
        return dir;
    }

    private InstanceFormatException malformed(String yaml) throws IOException {
        write("demo-instance", yaml);
        return assertThrows(InstanceFormatException.class, () -> InstanceCatalog.load(dataset));
    }

    @Test
    void loadsAValidInstanceWithItsTierCodebaseAndDigest() throws IOException {
        write("demo-instance", VALID);
        Instance instance = InstanceCatalog.load(dataset).find("demo-instance").orElseThrow();
        assertEquals(Subject.CPYTHON_STDLIB, instance.subject().kind());
        assertEquals("3.11.7", instance.subject().version());
        assertEquals("get", instance.expectedCrash().function());
        assertEquals(10, instance.expectedCrash().line());
        assertEquals(Tier.INJECTED, instance.tier());
        assertEquals("cpython-stdlib", instance.codebase());
        assertEquals(Instance.ORIGIN_SUBJECT, instance.targetTestOrigin());
        assertEquals("0", instance.determinism().get("PYTHONHASHSEED"));
        assertTrue(instance.digest().matches("[0-9a-f]{64}"), instance.digest());
    }

    @Test
    void aRealBugInstanceCarriesItsOwnTestAndFixPatch() throws IOException {
        write("toolz-real", REAL_BUG);
        Instance instance = InstanceCatalog.load(dataset).find("toolz-real").orElseThrow();
        assertEquals(Tier.REAL_BUG, instance.tier());
        assertEquals(Instance.ORIGIN_INSTANCE, instance.targetTestOrigin());
        assertEquals("fix.patch", instance.fixPatch());
        assertEquals(null, instance.bugPatch());
        assertEquals("toolz", instance.codebase());
        assertEquals("debian-source:toolz@0.12.0", instance.subject().toString());
    }

    @Test
    void aSubjectFileDeclaresTheCodebase() throws IOException {
        write("toolz-real", REAL_BUG.replace("debian-source:toolz@0.12.0", "debian-package:python3-toolz@0.12.0"));
        Files.createDirectories(dataset.resolve("subjects"));
        Files.writeString(dataset.resolve("subjects/toolz.yaml"), "subject: debian-package:python3-toolz@0.12.0\ncodebase: toolz\n");
        assertEquals("toolz", InstanceCatalog.load(dataset).find("toolz-real").orElseThrow().codebase());
        Files.delete(dataset.resolve("subjects/toolz.yaml"));
        assertEquals("python3-toolz", InstanceCatalog.load(dataset).find("toolz-real").orElseThrow().codebase());
    }

    @Test
    void subjectStringsOfEveryKindParse() {
        assertEquals(new Subject("git", "https://example.invalid/x/repo.git", "0123abc"), Subject.parse("git:https://example.invalid/x/repo.git@0123abc"));
        assertEquals("repo", Subject.parse("git:https://example.invalid/x/repo.git@0123abc").derivedCodebase());
        Subject local = Subject.parse("local:/srv/code/mylib/");
        assertEquals(null, local.version());
        assertEquals("mylib", local.derivedCodebase());
        assertEquals("local:/srv/code/mylib/", local.toString());
        assertEquals("cpython-stdlib", Subject.parse("cpython-stdlib@3.13.0").derivedCodebase());
        assertThrows(IllegalArgumentException.class, () -> Subject.parse("toolz"));
        assertThrows(IllegalArgumentException.class, () -> Subject.parse("debian-source:toolz"));
    }

    @Test
    void digestChangesWithThePatchButNotWithBytecode() throws IOException {
        Path dir = write("demo-instance", VALID);
        String before = InstanceCatalog.load(dataset).all().get(0).digest();
        Files.createDirectories(dir.resolve("__pycache__"));
        Files.writeString(dir.resolve("__pycache__/test_repro.cpython-311.pyc"), "bytecode");
        assertEquals(before, InstanceCatalog.load(dataset).all().get(0).digest());
        Files.writeString(dir.resolve("bug.patch"), "--- a/y\n+++ b/y\n");
        assertNotEquals(before, InstanceCatalog.load(dataset).all().get(0).digest());
    }

    @Test
    void malformedFieldsAreNamedWithTheirProblem() throws IOException {
        InstanceFormatException line = malformed(VALID.replace("line: 10", "line: abc"));
        assertEquals("expected_crash.line", line.field());
        assertTrue(line.getMessage().endsWith("instance.yaml: expected_crash.line: must be an integer >= 1, got 'abc'"), line.getMessage());
        assertTrue(line.getMessage().contains(dataset.resolve("instances/demo-instance/instance.yaml").toString()), line.getMessage());

        InstanceFormatException python = malformed(VALID.replace("python: \"3.11.7\"", "python: three"));
        assertEquals("python", python.field());
        assertTrue(python.getMessage().contains("must be one of 3.11.7, 3.12.1, 3.13.0, 3.11.2, got 'three'"), python.getMessage());

        assertEquals("provenance.operator", malformed(VALID.replace("get-to-subscript", "made-up")).field());
        assertEquals("expected_crash.line", malformed(VALID.replace("line: 10", "line: 0")).field());
        assertEquals("target_test", malformed(VALID.replace("::Case::test_x", "")).field());
        assertEquals("project_roots[0]", malformed(VALID.replace("[configparser.py]", "[../etc]")).field());
        assertEquals("determinism.PYTHONHASHSEED", malformed(VALID.replace("\"0\"", "0")).field());

        InstanceFormatException unknown = malformed(VALID + "colour: blue\n");
        assertEquals("colour", unknown.field());
        InstanceFormatException missing = malformed(VALID.replace("policy: default\n", ""));
        assertEquals("policy", missing.field());
        assertTrue(missing.getMessage().endsWith("policy: is required"), missing.getMessage());
    }

    @Test
    void patchesMustMatchTheTier() throws IOException {
        InstanceFormatException both = malformed(VALID.replace("bug_patch: bug.patch", "bug_patch: bug.patch\nfix_patch: fix.patch"));
        assertEquals("bug_patch or fix_patch", both.field());

        InstanceFormatException realBugWithBugPatch = malformed(REAL_BUG.replace("id: toolz-real", "id: demo-instance")
                .replace("fix_patch: fix.patch", "bug_patch: bug.patch"));
        assertEquals("fix_patch", realBugWithBugPatch.field());
        assertTrue(realBugWithBugPatch.getMessage().contains("because provenance.kind is 'real-bug'"), realBugWithBugPatch.getMessage());
    }

    @Test
    void filesAndNamesMustAgree() throws IOException {
        assertEquals("bug_patch", malformed(VALID.replace("bug_patch: bug.patch", "bug_patch: nope.patch")).field());
        assertEquals("python", malformed(VALID.replace("python: \"3.11.7\"", "python: \"3.12.1\"")).field());
        assertEquals("expected_crash.file", malformed(VALID.replace("file: configparser.py", "file: other.py")).field());
        assertEquals("target_test", malformed(REAL_BUG.replace("id: toolz-real", "id: demo-instance")
                .replace("test_repro.py::", "test_missing.py::")).field());
    }

    @Test
    void idMustMatchDirectory() throws IOException {
        write("other-name", VALID);
        InstanceFormatException e = assertThrows(InstanceFormatException.class, () -> InstanceCatalog.load(dataset));
        assertEquals("id", e.field());
    }

    @Test
    void slicesSelectBySubjectTierAndADeterministicSample() throws IOException {
        for (int i = 0; i < 12; i++) {
            write("stdlib-" + i, VALID.replace("demo-instance", "stdlib-" + i));
            write("toolz-" + i, REAL_BUG.replace("toolz-real", "toolz-" + i));
        }
        InstanceCatalog catalog = InstanceCatalog.load(dataset);
        assertEquals(12, catalog.select("toolz", null, 0, 0).size());
        assertEquals(12, catalog.select("debian-source:toolz@0.12.0", null, 0, 0).size());
        assertEquals(12, catalog.select("cpython-stdlib", null, 0, 0).size());
        assertEquals(12, catalog.select("cpython-stdlib@3.11.7", Tier.INJECTED, 0, 0).size());
        assertEquals(0, catalog.select("cpython-stdlib", Tier.REAL_BUG, 0, 0).size());
        assertEquals(0, catalog.select("jinja2", null, 0, 0).size());
        assertEquals(24, catalog.select(null, null, 0, 0).size());

        List<Instance> sample = catalog.select(null, Tier.REAL_BUG, 5, 7);
        assertEquals(5, sample.size());
        assertTrue(sample.stream().allMatch(i -> i.tier() == Tier.REAL_BUG));
        assertEquals(ids(sample), ids(catalog.select(null, Tier.REAL_BUG, 5, 7)), "the same seed, the same sample");
        assertEquals(ids(sample), ids(InstanceCatalog.load(dataset).select("toolz", null, 5, 7)), "subject and tier pick the same set here");
        Set<List<String>> samples = new HashSet<>();
        for (long seed = 0; seed < 6; seed++) {
            samples.add(ids(catalog.select(null, null, 5, seed)));
        }
        assertTrue(samples.size() > 1, "the seed changes the sample: " + samples);
        List<String> sorted = new ArrayList<>(ids(sample));
        sorted.sort(null);
        assertEquals(sorted, ids(sample), "a sample keeps the catalog's order");

        InstanceCatalog restricted = catalog.restrictTo(List.of("toolz-3", "stdlib-1", "toolz-3"));
        assertEquals(List.of("toolz-3", "stdlib-1"), ids(restricted.all()));
        assertEquals(List.of("toolz-3"), ids(restricted.select("toolz", null, 0, 0)));
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> catalog.restrictTo(List.of("nope-1")));
        assertTrue(unknown.getMessage().contains("'nope-1'"), unknown.getMessage());
    }

    @Test
    void addingInstancesKeepsTheSampledOnesThatStillRankFirst() throws IOException {
        for (int i = 0; i < 10; i++) {
            write("stdlib-" + i, VALID.replace("demo-instance", "stdlib-" + i));
        }
        List<String> before = ids(InstanceCatalog.load(dataset).select(null, null, 4, 1));
        for (int i = 10; i < 20; i++) {
            write("stdlib-" + i, VALID.replace("demo-instance", "stdlib-" + i));
        }
        List<String> after = ids(InstanceCatalog.load(dataset).select(null, null, 4, 1));
        List<String> kept = new ArrayList<>(after);
        kept.retainAll(before);
        List<String> added = new ArrayList<>(after);
        added.removeAll(before);
        assertEquals(4, kept.size() + added.size());
        assertTrue(added.stream().allMatch(id -> Integer.parseInt(id.substring("stdlib-".length())) >= 10),
                "only new instances can displace sampled ones: " + before + " -> " + after);
    }

    /** The digest is hbdata's, byte for byte: checked against dataset/tools/hbdata itself. */
    @Test
    void digestEqualsHbdatasForTrickyTreesAndTheWholeDataset() throws Exception {
        Path tricky = Files.createDirectories(dataset.resolve("tricky"));
        Files.createDirectories(tricky.resolve("a"));
        Files.writeString(tricky.resolve("a/b"), "nested\n");
        Files.writeString(tricky.resolve("a-c"), "sorts before a/b as a string, after it as path parts\n");
        Files.writeString(tricky.resolve("Z.txt"), "");
        Files.writeString(tricky.resolve("é.py"), "x = 'é'\n", StandardCharsets.UTF_8);
        Files.writeString(tricky.resolve("notes.txt~"), "editor backup\n");
        Files.createDirectories(tricky.resolve("a/.pytest_cache"));
        Files.writeString(tricky.resolve("a/.pytest_cache/v"), "cache\n");
        Files.write(tricky.resolve("blob.bin"), new byte[] {0, 1, 2, (byte) 0xff, 0});

        List<Path> dirs = new ArrayList<>(List.of(tricky));
        Path home = Path.of(System.getProperty("healbench.home", "..")).toAbsolutePath().normalize();
        try (var real = Files.list(home.resolve("dataset/instances"))) {
            dirs.addAll(real.filter(Files::isDirectory).sorted().toList());
        }
        assertTrue(dirs.size() > 1, "the repository's dataset has instances");
        List<String> command = new ArrayList<>(List.of("python3", "-c",
                "import sys\nfrom pathlib import Path\nfrom hbdata.instances import digest\nfor d in sys.argv[1:]:\n    print(digest(Path(d)))\n"));
        dirs.forEach(d -> command.add(d.toString()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("PYTHONPATH", home.resolve("dataset/tools").toString());
        Process python = builder.start();
        String output = new String(python.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(python.waitFor(60, TimeUnit.SECONDS), "hbdata answers in time");
        assertEquals(0, python.exitValue(), output);
        List<String> expected = output.lines().toList();
        assertEquals(dirs.size(), expected.size(), output);
        for (int i = 0; i < dirs.size(); i++) {
            assertEquals(expected.get(i), InstanceCatalog.digest(dirs.get(i)), dirs.get(i).toString());
        }
    }

    @Test
    void theRepositoryDatasetIsValid() {
        Path home = Path.of(System.getProperty("healbench.home", "..")).toAbsolutePath().normalize();
        List<Instance> all = InstanceCatalog.load(home.resolve("dataset")).all();
        assertTrue(all.size() >= 5, "instances: " + all.size());
        assertTrue(all.stream().allMatch(i -> i.tier() != null && !i.codebase().isEmpty()));
    }

    private static List<String> ids(List<Instance> instances) {
        return instances.stream().map(Instance::id).toList();
    }
}
