package io.healbench.sandbox.grpc;

import io.grpc.StatusRuntimeException;
import io.healbench.proto.guard.v1.AnalyzeHealRequest;
import io.healbench.proto.guard.v1.AnalyzeHealResponse;
import io.healbench.proto.guard.v1.CallSite;
import io.healbench.proto.guard.v1.CrashPoint;
import io.healbench.proto.guard.v1.DeltaEntry;
import io.healbench.proto.guard.v1.GuardService;
import io.healbench.proto.guard.v1.ModuleAst;
import io.healbench.sandbox.config.SandboxConfig;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxException.Kind;
import io.healbench.sandbox.service.heal.StaticAnalysis;
import io.healbench.sandbox.service.heal.StaticVerdict;
import io.healbench.sandbox.service.model.HealAnalysis;
import io.quarkus.grpc.GrpcClient;
import io.smallrye.mutiny.TimeoutException;
import jakarta.enterprise.context.ApplicationScoped;

/** The static stage as guard-service answers it ({@code AnalyzeHeal}); no answer is an UNAVAILABLE failure. */
@ApplicationScoped
public class GuardAnalysisClient implements StaticAnalysis {

    private final GuardService guard;
    private final SandboxConfig config;

    public GuardAnalysisClient(@GrpcClient("guard") GuardService guard, SandboxConfig config) {
        this.guard = guard;
        this.config = config;
    }

    @Override
    public StaticVerdict analyze(HealAnalysis analysis, String code, String policyJson) {
        AnalyzeHealResponse response;
        try {
            response = guard.analyzeHeal(request(analysis, code, policyJson)).await().atMost(config.analysisTimeout());
        } catch (StatusRuntimeException e) {
            throw new SandboxException(Kind.UNAVAILABLE, "GUARD_UNAVAILABLE", "AnalyzeHeal failed: " + e.getStatus(), e);
        } catch (TimeoutException e) {
            throw new SandboxException(Kind.UNAVAILABLE, "GUARD_UNAVAILABLE",
                    "AnalyzeHeal did not answer within " + config.analysisTimeout().toSeconds() + " s", e);
        } catch (RuntimeException e) {
            // Whatever else kept the answer from arriving: no verdict (the caller fails closed in enforce mode).
            throw new SandboxException(Kind.UNAVAILABLE, "GUARD_UNAVAILABLE", "AnalyzeHeal failed: " + e, e);
        }
        return new StaticVerdict(response.getVerdict().name(), response.getSource(), response.getSink().getOp(),
                response.getSink().getKeyInput(),
                response.getWitnessList().stream().map(s -> s.getFile() + ":" + s.getLine() + " " + s.getDescription()).toList(),
                response.getIncompleteList().stream().map(i -> i.getConstruct() + " at " + i.getFile() + ":" + i.getLine()).toList());
    }

    private static AnalyzeHealRequest request(HealAnalysis analysis, String code, String policyJson) {
        HealAnalysis.CrashPoint point = analysis.crashPoint();
        CrashPoint.Builder crash = CrashPoint.newBuilder().setFile(point.file()).setFunction(point.function())
                .setQualname(point.qualname()).setLine(point.line()).setCol(point.col()).setEndLine(point.endLine())
                .setEndCol(point.endCol()).setKind(point.kind()).setResume(point.resume());
        point.callers().forEach(c -> crash.addCallers(CallSite.newBuilder().setFile(c.file()).setFunction(c.function())
                .setQualname(c.qualname()).setLine(c.line()).setCol(c.col()).setEndLine(c.endLine()).setEndCol(c.endCol())
                .setThroughLibrary(c.throughLibrary())));
        AnalyzeHealRequest.Builder request = AnalyzeHealRequest.newBuilder().setHealCode(code).setHealPoint(analysis.healPoint())
                .setDeltaTruncated(analysis.deltaTruncated()).setCrashPoint(crash).setModulesTruncated(analysis.modulesTruncated())
                .setPolicyJson(policyJson);
        analysis.delta().forEach(d -> request.addDelta(DeltaEntry.newBuilder().setLocation(d.location()).setKind(d.kind())
                .setBefore(d.before()).setAfter(d.after()).addAllAlso(d.also())));
        analysis.modules().forEach(m -> request.addModules(ModuleAst.newBuilder().setFile(m.file()).setModule(m.module())
                .setAstJson(m.astJson())));
        return request.build();
    }
}
