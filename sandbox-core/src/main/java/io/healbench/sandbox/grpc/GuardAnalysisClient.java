package io.healbench.sandbox.grpc;

import io.grpc.StatusRuntimeException;
import io.healbench.common.guard.HealAnalysis;
import io.healbench.proto.guard.v1.AnalysisProtos;
import io.healbench.proto.guard.v1.AnalyzeHealResponse;
import io.healbench.proto.guard.v1.GuardService;
import io.healbench.sandbox.config.SandboxConfig;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxException.Kind;
import io.healbench.sandbox.service.heal.StaticAnalysis;
import io.healbench.sandbox.service.heal.StaticVerdict;
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
            response = guard.analyzeHeal(AnalysisProtos.request(code, analysis, policyJson)).await().atMost(config.analysisTimeout());
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
}
