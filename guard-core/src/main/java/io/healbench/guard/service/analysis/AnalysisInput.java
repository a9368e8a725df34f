package io.healbench.guard.service.analysis;

import java.util.List;

/**
 * What AnalyzeHeal decides on (docs/healguard.md §3): the heal's Δk, where the program stopped and continues, the
 * project modules' trees and the merged protected-operation policy.
 */
public record AnalysisInput(
        String healCode,
        int healPoint,
        List<DeltaEntry> delta,
        boolean deltaTruncated,
        CrashPoint crashPoint,
        List<ModuleSource> modules,
        boolean modulesTruncated,
        String policyJson) {

    /** One Δk entry: a location the heal changed or wrote. */
    /** {@code also}: the other paths of the paused frame to the location's owner (aliases made before the crash). */
    public record DeltaEntry(String location, String kind, String before, String after, List<String> also) {}

    /** The crashing statement, the resume mode, and the project callers (innermost first). */
    public record CrashPoint(String file, String function, String qualname, int line, int col, int endLine, int endCol,
                             String kind, String resume, List<CallSite> callers) {}

    /** Where a project caller continues: the span of the expression it is evaluating. */
    public record CallSite(String file, String function, String qualname, int line, int col, int endLine, int endCol,
                           boolean throughLibrary) {}

    /** One exported module: file relative to the source root, dotted name, and its tree as JSON text. */
    public record ModuleSource(String file, String module, String astJson) {}
}
