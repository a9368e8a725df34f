package io.healbench.guard.grpc;

import com.google.protobuf.Any;
import com.google.rpc.Code;
import com.google.rpc.ErrorInfo;
import com.google.rpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
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
import io.quarkus.grpc.GrpcService;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Uni;
import java.util.List;

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
            return Uni.createFrom().failure(invalid(ANALYSIS_INPUT_INVALID, e.getMessage()));
        } catch (AnalysisBusyException e) {
            return Uni.createFrom().failure(StatusProto.toStatusRuntimeException(Status.newBuilder()
                    .setCode(Code.RESOURCE_EXHAUSTED.getNumber()).setMessage(e.getMessage())
                    .addDetails(Any.pack(ErrorInfo.newBuilder().setReason(ANALYSIS_BUSY).setDomain(ERROR_DOMAIN).build()))
                    .build()));
        }
    }

    private static AnalysisInput toInput(AnalyzeHealRequest request) {
        var point = request.getCrashPoint();
        var callers = point.getCallersList().stream().map(c -> new AnalysisInput.CallSite(c.getFile(), c.getFunction(),
                c.getQualname(), c.getLine(), c.getCol(), c.getEndLine(), c.getEndCol(), c.getThroughLibrary())).toList();
        return new AnalysisInput(request.getHealCode(), request.getHealPoint(),
                request.getDeltaList().stream().map(d -> new AnalysisInput.DeltaEntry(d.getLocation(), d.getKind(), d.getBefore(),
                        d.getAfter(), List.copyOf(d.getAlsoList()))).toList(),
                request.getDeltaTruncated(),
                new AnalysisInput.CrashPoint(point.getFile(), point.getFunction(), point.getQualname(), point.getLine(),
                        point.getCol(), point.getEndLine(), point.getEndCol(), point.getKind(), point.getResume(), callers),
                request.getModulesList().stream().map(m -> new AnalysisInput.ModuleSource(m.getFile(), m.getModule(),
                        m.getAstJson())).toList(),
                request.getModulesTruncated(), request.getPolicyJson());
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

    private static StatusRuntimeException invalid(String reason, String message) {
        return StatusProto.toStatusRuntimeException(Status.newBuilder()
                .setCode(Code.INVALID_ARGUMENT.getNumber())
                .setMessage(message)
                .addDetails(Any.pack(ErrorInfo.newBuilder().setReason(reason).setDomain(ERROR_DOMAIN).build()))
                .build());
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
