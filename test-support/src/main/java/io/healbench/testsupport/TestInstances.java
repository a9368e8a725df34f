package io.healbench.testsupport;

/** Dataset instances for the tests of what reads the dataset, as the text of their instance.yaml (docs/dataset.md). */
public final class TestInstances {

    private TestInstances() {
    }

    /**
     * A real-bug instance of toolz 0.12.0: its own test ({@code test_repro.py}, beside the file) crashes with a TypeError
     * in {@code itertoolz.get}, and its {@code fix.patch} mends it.
     */
    public static String toolzRealBug(String id, String description) {
        return """
                id: %s
                subject: debian-source:toolz@0.12.0
                python: "3.11.2"
                project_roots: [toolz]
                fix_patch: fix.patch
                target_test: test_repro.py::test_it
                target_test_origin: instance
                expected_crash:
                  type: TypeError
                  file: toolz/itertoolz.py
                  function: get
                  line: 7
                policy: toolz
                provenance:
                  kind: real-bug
                  issue: gh-1
                  fixed_in: "0.12.1"
                  description: "%s"
                determinism:
                  PYTHONHASHSEED: "0"
                """.formatted(id, description);
    }
}
