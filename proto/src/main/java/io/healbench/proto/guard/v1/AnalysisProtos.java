package io.healbench.proto.guard.v1;

import io.healbench.common.guard.HealAnalysis;
import io.healbench.proto.outcome.v1.ResumeModes;
import java.util.List;

/**
 * The one mapping between the static stage's input ({@link HealAnalysis}) and AnalyzeHeal's request: the sandbox
 * builds the request with it, guard-service reads the request back with it.
 */
public final class AnalysisProtos {

    private AnalysisProtos() {}

    /** The request for {@code analysis}, with the heal's code and the merged protected-operation policy (as JSON). */
    public static AnalyzeHealRequest request(String healCode, HealAnalysis analysis, String policyJson) {
        AnalyzeHealRequest.Builder request = AnalyzeHealRequest.newBuilder().setHealCode(healCode).setHealPoint(analysis.healPoint())
                .setDeltaTruncated(analysis.deltaTruncated()).setCrashPoint(crashPoint(analysis.crashPoint()))
                .setModulesTruncated(analysis.modulesTruncated()).setPolicyJson(policyJson);
        analysis.delta().forEach(d -> request.addDelta(DeltaEntry.newBuilder().setLocation(d.location()).setKind(d.kind())
                .setBefore(d.before()).setAfter(d.after()).addAllAlso(d.also())));
        analysis.modules().forEach(m -> request.addModules(ModuleAst.newBuilder().setFile(m.file()).setModule(m.module())
                .setAstJson(m.astJson())));
        return request.build();
    }

    /** The request's analysis; its heal code and policy are read from the request itself. */
    public static HealAnalysis analysis(AnalyzeHealRequest request) {
        return new HealAnalysis(request.getHealPoint(),
                request.getDeltaList().stream().map(d -> new HealAnalysis.DeltaEntry(d.getLocation(), d.getKind(), d.getBefore(),
                        d.getAfter(), List.copyOf(d.getAlsoList()))).toList(),
                request.getDeltaTruncated(), crashPoint(request.getCrashPoint()),
                request.getModulesList().stream().map(m -> new HealAnalysis.ModuleTree(m.getFile(), m.getModule(), m.getAstJson())).toList(),
                request.getModulesTruncated());
    }

    private static CrashPoint crashPoint(HealAnalysis.CrashPoint point) {
        CrashPoint.Builder crash = CrashPoint.newBuilder().setFile(point.file()).setFunction(point.function())
                .setQualname(point.qualname()).setLine(point.line()).setCol(point.col()).setEndLine(point.endLine())
                .setEndCol(point.endCol()).setKind(point.kind()).setResume(ResumeModes.of(point.resume()));
        point.callers().forEach(c -> crash.addCallers(CallSite.newBuilder().setFile(c.file()).setFunction(c.function())
                .setQualname(c.qualname()).setLine(c.line()).setCol(c.col()).setEndLine(c.endLine()).setEndCol(c.endCol())
                .setThroughLibrary(c.throughLibrary())));
        return crash.build();
    }

    private static HealAnalysis.CrashPoint crashPoint(CrashPoint point) {
        return new HealAnalysis.CrashPoint(point.getFile(), point.getFunction(), point.getQualname(), point.getLine(), point.getCol(),
                point.getEndLine(), point.getEndCol(), point.getKind(),
                // An unknown number throws, and the caller refuses the request.
                ResumeModes.resume(point.getResume()),
                point.getCallersList().stream().map(c -> new HealAnalysis.CallSite(c.getFile(), c.getFunction(), c.getQualname(),
                        c.getLine(), c.getCol(), c.getEndLine(), c.getEndCol(), c.getThroughLibrary())).toList());
    }
}
