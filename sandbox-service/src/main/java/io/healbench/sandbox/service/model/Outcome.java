package io.healbench.sandbox.service.model;

import java.util.Map;

/**
 * The result of one execution, as the runtime reports it at exit or as the sandbox infers it when the process died.
 * {@code reference} is its comparison with the instance's REFERENCE run, when one was made (BUGGY sessions).
 */
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
        String detail,
        ReferenceComparison reference) {

    /** An outcome not (yet) compared with a reference run. */
    public Outcome(boolean proceeded, boolean passed, int healPoints, int healsApplied, int healsRejected, String exitCause,
                   int exitCode, long wallTimeMs, Map<String, Long> trace, String detail) {
        this(proceeded, passed, healPoints, healsApplied, healsRejected, exitCause, exitCode, wallTimeMs, trace, detail, null);
    }

    /** An outcome for a process that ended without reporting one. */
    public static Outcome withoutReport(String exitCause, int exitCode, long wallTimeMs, String detail) {
        return new Outcome(false, false, 0, 0, 0, exitCause, exitCode, wallTimeMs, Map.of(), detail);
    }

    public Outcome withReference(ReferenceComparison comparison) {
        return new Outcome(proceeded, passed, healPoints, healsApplied, healsRejected, exitCause, exitCode, wallTimeMs, trace, detail, comparison);
    }

    public Outcome withDetail(String more) {
        String joined = detail == null || detail.isEmpty() ? more : detail + "; " + more;
        return new Outcome(proceeded, passed, healPoints, healsApplied, healsRejected, exitCause, exitCode, wallTimeMs, trace, joined, reference);
    }
}
