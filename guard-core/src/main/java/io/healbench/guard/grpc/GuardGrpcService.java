package io.healbench.guard.grpc;

import io.grpc.Status.Code;
import io.grpc.StatusRuntimeException;
import io.healbench.guard.service.GuardMetrics;
import io.healbench.guard.service.analysis.AnalysisBusyException;
import io.healbench.guard.service.analysis.AnalysisInput;
import io.healbench.guard.service.analysis.AnalysisInputException;
import io.healbench.guard.service.analysis.AnalysisResult;
import io.healbench.guard.service.analysis.HealAnalyzer;
import io.healbench.guard.service.gate.GateDiagnostic;
import io.healbench.guard.service.gate.GateVerdict;
import io.healbench.guard.service.gate.HealCodeTooLargeException;
import io.healbench.guard.service.gate.HealCoreGate;
import io.healbench.proto.guard.v1.AnalysisProtos;
import io.healbench.proto.guard.v1.AnalyzeHealRequest;
import io.healbench.proto.guard.v1.AnalyzeHealResponse;
import io.healbench.proto.guard.v1.CheckHealCodeRequest;
import io.healbench.proto.guard.v1.CheckHealCodeResponse;
import io.healbench.proto.guard.v1.Diagnostic;
import io.healbench.proto.guard.v1.GuardService;
import io.healbench.proto.guard.v1.Incompleteness;
import io.healbench.proto.guard.v1.SinkOperation;
import io.healbench.proto.guard.v1.StaticVerdict;
import io.healbench.proto.guard.v1.WitnessStep;
import io.healbench.proto.rpc.RichStatus;
import io.quarkus.grpc.GrpcService;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Uni;
import java.util.Map;

/** gRPC adapter of HealGuard: maps requests to the domain gate and its answers back to protos. */
@GrpcService
public class GuardGrpcService implements GuardService {

    static final String ERROR_DOMAIN = "guard.healbench.io";
    static final String HEAL_CODE_TOO_LARGE = "HEAL_CODE_TOO_LARGE";
    static final String ANALYSIS_INPUT_INVALID = "ANALYSIS_INPUT_INVALID";
    /** RESOURCE_EXHAUSTED: every analysis thread is busy and the queue is full; try again. */
    static final String ANALYSIS_BUSY = "ANALYSIS_BUSY";

    private final HealCoreGate gate;
    private final HealAnalyzer analyzer;
    private final GuardMetrics metrics;

    public GuardGrpcService(HealCoreGate gate, HealAnalyzer analyzer, GuardMetrics metrics) {
        this.gate = gate;
        this.analyzer = analyzer;
        this.metrics = metrics;
    }

    @Override
    @Blocking // the analysis is CPU work; keep it off the event loop
    public Uni<AnalyzeHealResponse> analyzeHeal(AnalyzeHealRequest request) {
        try {
            AnalysisResult result = analyzer.analyze(toInput(request));
            metrics.analyzed(result);
            return Uni.createFrom().item(toResponse(result));
        } catch (AnalysisInputException e) {
            return Uni.createFrom().failure(RichStatus.exception(Code.INVALID_ARGUMENT, ERROR_DOMAIN, ANALYSIS_INPUT_INVALID, e.getMessage()));
        } catch (AnalysisBusyException e) {
            return Uni.createFrom().failure(RichStatus.exception(Code.RESOURCE_EXHAUSTED, ERROR_DOMAIN, ANALYSIS_BUSY, e.getMessage()));
        }
    }

    private static AnalysisInput toInput(AnalyzeHealRequest request) {
        try {
            return new AnalysisInput(request.getHealCode(), AnalysisProtos.analysis(request), request.getPolicyJson());
        } catch (IllegalArgumentException e) { // a typed field's number is none of its values (the crash point's resume)
            throw new AnalysisInputException("crash_point: " + e.getMessage());
        }
    }

    private static AnalyzeHealResponse toResponse(AnalysisResult result) {
        AnalyzeHealResponse.Builder response = AnalyzeHealResponse.newBuilder()
                .setVerdict(switch (result.verdict()) {
                    case TAINTED -> StaticVerdict.TAINTED;
                    case CLEAN -> StaticVerdict.CLEAN;
                    case UNKNOWN -> StaticVerdict.UNKNOWN;
                })
                .setSource(result.source())
                .setAnalyzerVersion(AnalysisResult.ANALYZER_VERSION)
                .setFunctionsAnalyzed(result.functionsAnalyzed());
        result.witness().forEach(step -> response.addWitness(WitnessStep.newBuilder().setFile(step.file())
                .setLine(step.line()).setCol(step.col()).setDescription(step.description())));
        if (result.sink() != null) {
            AnalysisResult.Sink sink = result.sink();
            response.setSink(SinkOperation.newBuilder().setOp(sink.op()).setCategory(sink.category()).setKeyInput(sink.keyInput())
                    .setFile(sink.file()).setLine(sink.line()).setCol(sink.col()));
        }
        result.incomplete().forEach(gap -> response.addIncomplete(Incompleteness.newBuilder().setFile(gap.file())
                .setLine(gap.line()).setCol(gap.col()).setConstruct(gap.construct()).setReason(gap.reason())));
        return response.build();
    }

    @Override
    @Blocking // parsing is CPU work; keep it off the event loop
    public Uni<CheckHealCodeResponse> checkHealCode(CheckHealCodeRequest request) {
        try {
            GateVerdict verdict = gate.check(request.getCode());
            metrics.gateChecked(verdict);
            return Uni.createFrom().item(toResponse(verdict));
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
        return RichStatus.exception(Code.INVALID_ARGUMENT, ERROR_DOMAIN, HEAL_CODE_TOO_LARGE, e.getMessage(),
                Map.of("size_bytes", Long.toString(e.sizeBytes()), "limit_bytes", Long.toString(e.limitBytes())));
    }
}
