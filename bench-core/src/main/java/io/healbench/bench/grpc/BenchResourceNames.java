package io.healbench.bench.grpc;

import io.healbench.bench.service.BenchException;

/** AIP resource names: {@code runs/{run}} and {@code runs/{run}/attempts/{attempt}}. */
final class BenchResourceNames {

    private static final String RUNS = "runs/";

    private BenchResourceNames() {
    }

    static String run(String runId) {
        return RUNS + runId;
    }

    static String attempt(String runId, String attemptId) {
        return RUNS + runId + "/attempts/" + attemptId;
    }

    /** The run id of a run name; INVALID_ARGUMENT when the name is not {@code runs/{run}}. */
    static String runId(String name) {
        if (name == null || !name.startsWith(RUNS) || name.length() == RUNS.length()
                || name.indexOf('/', RUNS.length()) >= 0) {
            throw BenchException.invalidArgument("RUN_NAME_INVALID", "expected a run name runs/{run}, got '" + name + "'");
        }
        return name.substring(RUNS.length());
    }

    /** The run and attempt ids of an attempt name; INVALID_ARGUMENT when it is not {@code runs/{run}/attempts/{attempt}}. */
    static String[] attemptIds(String name) {
        String[] parts = name == null ? new String[0] : name.split("/", -1);
        if (parts.length != 4 || !parts[0].equals("runs") || parts[1].isEmpty() || !parts[2].equals("attempts")
                || parts[3].isEmpty()) {
            throw BenchException.invalidArgument("ATTEMPT_NAME_INVALID",
                    "expected an attempt name runs/{run}/attempts/{attempt}, got '" + name + "'");
        }
        return new String[] {parts[1], parts[3]};
    }
}
