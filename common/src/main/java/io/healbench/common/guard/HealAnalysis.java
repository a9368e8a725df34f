package io.healbench.common.guard;

import io.healbench.common.heal.Resume;
import java.util.List;

/**
 * What HealGuard's static stage decides on, as healrt reports it after a heal's dry run (heal_analysis,
 * docs/control-protocol.md): the heal's Δk, where the program stopped and continues, and the project modules' trees
 * (the crashing module, its callers' modules, then the other loaded project modules). The sandbox decodes it from the
 * runtime; guard-service analyses it. {@code deltaTruncated}: a bound was reached while computing Δk, so a source may
 * be missing; {@code modulesTruncated}: the export cap was reached, so some project modules are missing.
 */
public record HealAnalysis(int healPoint, List<DeltaEntry> delta, boolean deltaTruncated, CrashPoint crashPoint,
                           List<ModuleTree> modules, boolean modulesTruncated) {

    /**
     * One Δk entry: a location the heal changed or wrote ({@code name:x}, {@code attr:self.cfg.name},
     * {@code item:d['k']}). {@code also}: the other paths of the paused frame to the location's owner (aliases made
     * before the crash).
     */
    public record DeltaEntry(String location, String kind, String before, String after, List<String> also) {}

    /** The crashing statement, the resume mode, and the project callers (innermost first). */
    public record CrashPoint(String file, String function, String qualname, int line, int col, int endLine, int endCol,
                             String kind, Resume resume, List<CallSite> callers) {}

    /**
     * Where a project caller continues: the span of the expression it is evaluating (the call);
     * {@code throughLibrary}: library frames sit between it and the frame inside it.
     */
    public record CallSite(String file, String function, String qualname, int line, int col, int endLine, int endCol,
                           boolean throughLibrary) {}

    /** One exported module: file relative to the source root, dotted name, and its tree as one JSON object. */
    public record ModuleTree(String file, String module, String astJson) {}
}
