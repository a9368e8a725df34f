package io.healbench.sandbox.service.model;

import io.healbench.common.outcome.ExitCause;
import java.util.Map;

/**
 * The result of one execution, as the runtime reports it at exit or as the sandbox infers it when the process died.
 * {@code reported} says which: true when the runtime sent it, false when the sandbox inferred it from the process's
 * end (the program never got as far as reporting: a missing package, a harness crash, a kill). {@code reference} is
 * its comparison with the instance's REFERENCE run, when one was made (BUGGY sessions); {@code resources} what the
 * session used of its caps, once its process has ended (null before).
 */
public record Outcome(
        boolean proceeded,
        boolean passed,
        int healPoints,
        int healsApplied,
        int healsRejected,
        ExitCause exitCause,
        int exitCode,
        long wallTimeMs,
        Map<String, Long> trace,
        String detail,
        boolean reported,
        ReferenceComparison reference,
        ResourceUse resources) {

    /** An outcome the runtime reported, not (yet) compared with a reference run. */
    public static Outcome reported(boolean proceeded, boolean passed, int healPoints, int healsApplied, int healsRejected,
                                   ExitCause exitCause, int exitCode, long wallTimeMs, Map<String, Long> trace, String detail) {
        return new Outcome(proceeded, passed, healPoints, healsApplied, healsRejected, exitCause, exitCode, wallTimeMs, trace,
                detail, true, null, null);
    }

    /** An outcome for a process that ended without reporting one. */
    public static Outcome withoutReport(ExitCause exitCause, int exitCode, long wallTimeMs, String detail) {
        return new Outcome(false, false, 0, 0, 0, exitCause, exitCode, wallTimeMs, Map.of(), detail, false, null, null);
    }

    public Outcome withReference(ReferenceComparison comparison) {
        return new Outcome(proceeded, passed, healPoints, healsApplied, healsRejected, exitCause, exitCode, wallTimeMs, trace,
                detail, reported, comparison, resources);
    }

    /** Not a pass, whatever it claimed: {@code why} says what contradicts it. */
    public Outcome untrusted(String why) {
        String joined = "outcome not trusted: " + why + (detail == null || detail.isEmpty() ? "" : "; " + detail);
        return new Outcome(proceeded, false, healPoints, healsApplied, healsRejected, exitCause, exitCode, wallTimeMs, trace,
                joined, reported, reference, resources);
    }

    public Outcome withDetail(String more) {
        String joined = detail == null || detail.isEmpty() ? more : detail + "; " + more;
        return new Outcome(proceeded, passed, healPoints, healsApplied, healsRejected, exitCause, exitCode, wallTimeMs, trace,
                joined, reported, reference, resources);
    }

    public Outcome withResources(ResourceUse used) {
        return new Outcome(proceeded, passed, healPoints, healsApplied, healsRejected, exitCause, exitCode, wallTimeMs, trace,
                detail, reported, reference, used);
    }
}
