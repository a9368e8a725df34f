package io.healbench.sandbox.grpc;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.healbench.common.guard.HealAnalysis;
import io.healbench.proto.guard.v1.AnalysisProtos;
import io.healbench.proto.guard.v1.AnalyzeHealResponse;
import io.healbench.proto.guard.v1.CheckHealCodeRequest;
import io.healbench.proto.guard.v1.CheckHealCodeResponse;
import io.healbench.proto.guard.v1.Diagnostic;
import io.healbench.proto.guard.v1.GuardService;
import io.healbench.sandbox.config.SandboxConfig;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxException.Kind;
import io.healbench.sandbox.service.heal.GateAnswer;
import io.healbench.sandbox.service.heal.HealCodeGate;
import io.healbench.sandbox.service.heal.StaticAnalysis;
import io.healbench.sandbox.service.heal.StaticVerdict;
import io.quarkus.grpc.GrpcClient;
import io.smallrye.mutiny.TimeoutException;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.List;

/**
 * guard-service as the sandbox calls it: the HealCore gate ({@code CheckHealCode}) and the static stage
 * ({@code AnalyzeHeal}). Both fail closed: no answer is GUARD_UNAVAILABLE, and the heal is not run (the gate) or, in
 * enforce mode, not committed (the static stage).
 */
@ApplicationScoped
public class GuardClient implements HealCodeGate, StaticAnalysis {

    private final GuardService guard;
    private final SandboxConfig config;

    public GuardClient(@GrpcClient("guard") GuardService guard, SandboxConfig config) {
        this.guard = guard;
        this.config = config;
    }

    @Override
    public GateAnswer check(String code) {
        CheckHealCodeResponse response;
        try {
            response = answer("the HealCore gate (CheckHealCode)",
                    guard.checkHealCode(CheckHealCodeRequest.newBuilder().setCode(code).build()), config.gateTimeout());
        } catch (SandboxException e) {
            if (e.getCause() instanceof StatusRuntimeException refused && refused.getStatus().getCode() == Status.Code.INVALID_ARGUMENT) {
                // The gate refused the request itself (e.g. code too large): a rejection, not an outage.
                return new GateAnswer(false, List.of(String.valueOf(refused.getStatus().getDescription())), "");
            }
            throw e;
        }
        List<String> diagnostics = response.getDiagnosticsList().stream().map(GuardClient::describe).toList();
        return new GateAnswer(response.getAllowed(), diagnostics, response.getGateVersion());
    }

    @Override
    public StaticVerdict analyze(HealAnalysis analysis, String code, String policyJson) {
        AnalyzeHealResponse response = answer("the static stage (AnalyzeHeal)",
                guard.analyzeHeal(AnalysisProtos.request(code, analysis, policyJson)), config.analysisTimeout());
        return new StaticVerdict(response.getVerdict().name(), response.getSource(), response.getSink().getOp(),
                response.getSink().getKeyInput(),
                response.getWitnessList().stream().map(s -> s.getFile() + ":" + s.getLine() + " " + s.getDescription()).toList(),
                response.getIncompleteList().stream().map(i -> i.getConstruct() + " at " + i.getFile() + ":" + i.getLine()).toList());
    }

    /** The call's answer within {@code timeout}; whatever keeps it from arriving is GUARD_UNAVAILABLE, with the cause kept. */
    private static <T> T answer(String rpc, Uni<T> call, Duration timeout) {
        try {
            return call.await().atMost(timeout);
        } catch (StatusRuntimeException e) {
            throw new SandboxException(Kind.UNAVAILABLE, "GUARD_UNAVAILABLE", rpc + " failed: " + e.getStatus(), e);
        } catch (TimeoutException e) {
            throw new SandboxException(Kind.UNAVAILABLE, "GUARD_UNAVAILABLE",
                    rpc + " did not answer within " + timeout.toSeconds() + " s", e);
        } catch (RuntimeException e) {
            throw new SandboxException(Kind.UNAVAILABLE, "GUARD_UNAVAILABLE", rpc + " failed: " + e, e);
        }
    }

    private static String describe(Diagnostic d) {
        return "line " + d.getLine() + ", column " + d.getColumn() + ": " + d.getConstruct() + " - " + d.getReason();
    }
}
