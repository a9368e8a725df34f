package io.healbench.sandbox.grpc;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.healbench.proto.guard.v1.CheckHealCodeRequest;
import io.healbench.proto.guard.v1.CheckHealCodeResponse;
import io.healbench.proto.guard.v1.Diagnostic;
import io.healbench.proto.guard.v1.GuardService;
import io.healbench.sandbox.config.SandboxConfig;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxException.Kind;
import io.healbench.sandbox.service.heal.GateAnswer;
import io.healbench.sandbox.service.heal.HealCodeGate;
import io.quarkus.grpc.GrpcClient;
import io.smallrye.mutiny.TimeoutException;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;

/** The HealCore gate as guard-service answers it ({@code CheckHealCode}). Fails closed: no answer, no heal. */
@ApplicationScoped
public class GuardGateClient implements HealCodeGate {

    private final GuardService guard;
    private final SandboxConfig config;

    public GuardGateClient(@GrpcClient("guard") GuardService guard, SandboxConfig config) {
        this.guard = guard;
        this.config = config;
    }

    @Override
    public GateAnswer check(String code) {
        CheckHealCodeResponse response;
        try {
            response = guard.checkHealCode(CheckHealCodeRequest.newBuilder().setCode(code).build())
                    .await().atMost(config.gateTimeout());
        } catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.INVALID_ARGUMENT) {
                // The gate refused the request itself (e.g. code too large): a rejection, not an outage.
                return new GateAnswer(false, List.of(String.valueOf(e.getStatus().getDescription())), "");
            }
            throw new SandboxException(Kind.UNAVAILABLE, "GUARD_UNAVAILABLE",
                    "the HealCore gate (guard-service) could not check the heal, so it was not run: " + e.getStatus(), e);
        } catch (TimeoutException e) {
            throw new SandboxException(Kind.UNAVAILABLE, "GUARD_UNAVAILABLE",
                    "the HealCore gate (guard-service) did not answer within " + config.gateTimeout().toSeconds() + " s, so the heal was not run", e);
        }
        List<String> diagnostics = response.getDiagnosticsList().stream().map(GuardGateClient::describe).toList();
        return new GateAnswer(response.getAllowed(), diagnostics, response.getGateVersion());
    }

    private static String describe(Diagnostic d) {
        return "line " + d.getLine() + ", column " + d.getColumn() + ": " + d.getConstruct() + " - " + d.getReason();
    }
}
