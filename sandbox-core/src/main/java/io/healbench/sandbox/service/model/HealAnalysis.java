package io.healbench.sandbox.service.model;

import java.util.List;

/**
 * What the runtime reports after a heal's dry run when the static stage is on (heal_analysis, docs/healguard.md §2):
 * Δk, the crash point with the project callers, and the project modules' trees as JSON.
 */
public record HealAnalysis(
        int healPoint,
        List<DeltaEntry> delta,
        boolean deltaTruncated,
        CrashPoint crashPoint,
        List<ModuleTree> modules,
        boolean modulesTruncated) {

    /** {@code also}: the other paths at which the slot's owner is reached in the paused frame (aliases). */
    public record DeltaEntry(String location, String kind, String before, String after, List<String> also) {}

    public record CrashPoint(String file, String function, String qualname, int line, int col, int endLine, int endCol,
                             String kind, String resume, List<CallSite> callers) {}

    public record CallSite(String file, String function, String qualname, int line, int col, int endLine, int endCol,
                           boolean throughLibrary) {}

    /** One module: file relative to the source root, dotted name, tree as one JSON object. */
    public record ModuleTree(String file, String module, String astJson) {}
}
