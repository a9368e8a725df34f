package io.healbench.guard.grpc;

import com.google.protobuf.Any;
import com.google.rpc.Code;
import com.google.rpc.ErrorInfo;
import com.google.rpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.healbench.guard.service.gate.GateDiagnostic;
import io.healbench.guard.service.gate.GateVerdict;
import io.healbench.guard.service.gate.HealCodeTooLargeException;
import io.healbench.guard.service.gate.HealCoreGate;
import io.healbench.proto.guard.v1.CheckHealCodeRequest;
import io.healbench.proto.guard.v1.CheckHealCodeResponse;
import io.healbench.proto.guard.v1.Diagnostic;
import io.healbench.proto.guard.v1.GuardService;
import io.quarkus.grpc.GrpcService;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Uni;

/** gRPC adapter of HealGuard: maps requests to the domain gate and its answers back to protos. */
@GrpcService
public class GuardGrpcService implements GuardService {

    static final String ERROR_DOMAIN = "guard.healbench.io";
    static final String HEAL_CODE_TOO_LARGE = "HEAL_CODE_TOO_LARGE";

    private final HealCoreGate gate;

    public GuardGrpcService(HealCoreGate gate) {
        this.gate = gate;
    }

    @Override
    @Blocking // parsing is CPU work; keep it off the event loop
    public Uni<CheckHealCodeResponse> checkHealCode(CheckHealCodeRequest request) {
        try {
            return Uni.createFrom().item(toResponse(gate.check(request.getCode())));
        } catch (HealCodeTooLargeException e) {
            return Uni.createFrom().failure(tooLarge(e));
        }
    }

    private static CheckHealCodeResponse toResponse(GateVerdict verdict) {
        CheckHealCodeResponse.Builder response = CheckHealCodeResponse.newBuilder()
                .setAllowed(verdict.allowed())
                .setGateVersion(verdict.gateVersion());
        for (GateDiagnostic diagnostic : verdict.diagnostics()) {
            response.addDiagnostics(Diagnostic.newBuilder()
                    .setLine(diagnostic.line())
                    .setColumn(diagnostic.column())
                    .setConstruct(diagnostic.construct())
                    .setReason(diagnostic.reason()));
        }
        return response.build();
    }

    private static StatusRuntimeException tooLarge(HealCodeTooLargeException e) {
        return StatusProto.toStatusRuntimeException(Status.newBuilder()
                .setCode(Code.INVALID_ARGUMENT.getNumber())
                .setMessage(e.getMessage())
                .addDetails(Any.pack(ErrorInfo.newBuilder()
                        .setReason(HEAL_CODE_TOO_LARGE)
                        .setDomain(ERROR_DOMAIN)
                        .putMetadata("size_bytes", Long.toString(e.sizeBytes()))
                        .putMetadata("limit_bytes", Long.toString(e.limitBytes()))
                        .build()))
                .build());
    }
}
