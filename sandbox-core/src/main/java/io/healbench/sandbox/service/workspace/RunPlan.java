package io.healbench.sandbox.service.workspace;

import java.util.List;
import java.util.Map;

/**
 * A workspace's {@code plan.json} (docs/dataset.md §5), written by {@code python3 -m hbdata materialize}: the single
 * description of how to run the target test. Paths are absolute.
 *
 * @param python         the interpreter that runs the target test
 * @param subjectRoot    the pristine subject, read-only
 * @param sourceDir      {@code WS/src}: the project roots of this variant
 * @param projectModules the top-level modules healrt instruments
 * @param targetTest     the pytest node id, with an absolute file path
 * @param pytestArgs     pytest's arguments, the node id first
 * @param env            environment variables of the run (determinism settings among them)
 * @param pythonpath     what goes on PYTHONPATH after healrt (a subject's extracted dependencies)
 * @param readable       what the run must be able to read besides the system and the workspace
 */
public record RunPlan(
        String instance,
        String variant,
        String digest,
        String python,
        String subjectRoot,
        String sourceDir,
        List<String> projectModules,
        String targetTest,
        List<String> pytestArgs,
        Map<String, String> env,
        List<String> pythonpath,
        List<String> readable) {}
