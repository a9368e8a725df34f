package io.healbench.sandbox.service.model;

import java.util.Map;

/** The result of one execution, as the runtime reports it at exit or as the sandbox infers it when the process died. */
public record Outcome(
        boolean proceeded,
        boolean passed,
        int healPoints,
        int healsApplied,
        int healsRejected,
        String exitCause,
        int exitCode,
        long wallTimeMs,
        Map<String, Long> trace,
        String detail) {

    /** An outcome for a process that ended without reporting one. */
    public static Outcome withoutReport(String exitCause, int exitCode, long wallTimeMs, String detail) {
        return new Outcome(false, false, 0, 0, 0, exitCause, exitCode, wallTimeMs, Map.of(), detail);
    }
}
