package io.healbench.guard.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import com.google.protobuf.Any;
import com.google.rpc.ErrorInfo;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.healbench.guard.service.gate.HealCorePolicy;
import io.healbench.guard.service.analysis.AnalysisInput;
import io.healbench.guard.service.analysis.AnalysisInputs;
import io.healbench.proto.guard.v1.AnalysisProtos;
import io.healbench.proto.guard.v1.AnalyzeHealRequest;
import io.healbench.proto.guard.v1.AnalyzeHealResponse;
import io.healbench.proto.guard.v1.CheckHealCodeRequest;
import io.healbench.proto.guard.v1.CheckHealCodeResponse;
import io.healbench.proto.guard.v1.Diagnostic;
import io.healbench.proto.guard.v1.CrashPoint;
import io.healbench.proto.guard.v1.DeltaEntry;
import io.healbench.proto.guard.v1.GuardService;
import io.healbench.proto.guard.v1.ModuleAst;
import io.healbench.proto.guard.v1.StaticVerdict;
import io.quarkus.grpc.GrpcClient;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/** CheckHealCode over real gRPC, through the HTTP server's port (127.0.0.1:18101 in tests). */
@QuarkusTest
class GuardGrpcServiceTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @GrpcClient("guard")
    GuardService guard;

    @Test
    void allowsHealCore() {
        CheckHealCodeResponse response = check("import math\nif y == 0:\n    _return_ = math.inf\nelse:\n    _return_ = x / y\n");

        assertTrue(response.getAllowed(), response::toString);
        assertEquals(0, response.getDiagnosticsCount());
        assertEquals(HealCorePolicy.loadDefault().version(), response.getGateVersion());
    }

    @Test
    void rejectsWithDiagnostics() {
        CheckHealCodeResponse response = check("import subprocess\nvalue = eval(text)\n");

        assertFalse(response.getAllowed());
        assertEquals(2, response.getDiagnosticsCount(), response::toString);
        Diagnostic importDiagnostic = response.getDiagnostics(0);
        assertEquals("import subprocess", importDiagnostic.getConstruct());
        assertEquals(1, importDiagnostic.getLine());
        assertEquals(8, importDiagnostic.getColumn());
        assertTrue(importDiagnostic.getReason().contains("allowlist"), importDiagnostic::getReason);
        Diagnostic evalDiagnostic = response.getDiagnostics(1);
        assertEquals("eval", evalDiagnostic.getConstruct());
        assertEquals(2, evalDiagnostic.getLine());
        assertEquals(9, evalDiagnostic.getColumn());
    }

    @Test
    void refusesOversizedCodeWithInvalidArgument() throws Exception {
        String oversized = "x = 1\n".repeat(12_000); // 72,000 bytes > 64 KiB

        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> check(oversized));

        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
        com.google.rpc.Status status = StatusProto.fromThrowable(e);
        ErrorInfo info = null;
        for (Any detail : status.getDetailsList()) {
            if (detail.is(ErrorInfo.class)) {
                info = detail.unpack(ErrorInfo.class);
            }
        }
        assertEquals("HEAL_CODE_TOO_LARGE", info == null ? null : info.getReason(), status::toString);
        assertEquals("72000", info.getMetadataOrThrow("size_bytes"));
        assertEquals("65536", info.getMetadataOrThrow("limit_bytes"));
        assertTrue(status.getMessage().contains("72000 bytes"), status::getMessage);
    }

    @Test
    void analyzeHealAnswersWithTheFlow() {
        String app = "import os\n\ndef work(d):\n    name = d['name']  # CRASH\n    os.remove(name + '.tmp')\n";
        AnalyzeHealResponse response = analyze(AnalysisInputs.direct(app, "PAD = 0\n"));

        assertEquals(StaticVerdict.TAINTED, response.getVerdict(), response::toString);
        assertEquals("name:name", response.getSource());
        assertEquals("os.remove", response.getSink().getOp());
        assertEquals("file_delete", response.getSink().getCategory());
        assertEquals(5, response.getSink().getLine());
        assertEquals(2, response.getWitnessCount(), response::toString);
        assertEquals(4, response.getWitness(0).getLine());
        assertEquals("healguard-static-1", response.getAnalyzerVersion());
    }

    @Test
    void analyzeHealTakesLargeExports() {
        // Some 10 MB of module JSON: over gRPC's default 4 MiB inbound limit, under healrt's 8 MB cap plus margin.
        String app = "def work(d):\n    name = d['name']  # CRASH\n    print(name)\n";
        AnalyzeHealResponse response = analyze(AnalysisInputs.direct(app, "X = 1\n".repeat(60_000)));

        assertEquals(StaticVerdict.CLEAN, response.getVerdict(), () -> response.getIncompleteList().toString());
    }

    @Test
    void analyzeHealRefusesMalformedTrees() throws Exception {
        AnalyzeHealRequest bad = AnalyzeHealRequest.newBuilder()
                .addDelta(DeltaEntry.newBuilder().setLocation("name:x").setKind("both"))
                .setCrashPoint(CrashPoint.newBuilder().setFile("app.py").setQualname("f").setLine(1))
                .addModules(ModuleAst.newBuilder().setFile("app.py").setModule("app").setAstJson("{\"_type\": \"Expr\"}"))
                .setPolicyJson("{\"operations\": {}}").build();

        assertInputInvalid(bad, "root must be a Module");
    }

    @Test
    void analyzeHealRefusesAResumeItDoesNotKnow() throws Exception {
        AnalysisInput input = AnalysisInputs.direct("def work(d):\n    name = d['name']  # CRASH\n    print(name)\n", "");
        AnalyzeHealRequest request = AnalysisProtos.request(input.healCode(), input.analysis(), input.policyJson());
        AnalyzeHealRequest sideways = request.toBuilder()
                .setCrashPoint(request.getCrashPoint().toBuilder().setResumeValue(7)).build(); // a newer peer's value

        // Refused, not analysed as a skip: the resume decides where the healed frame's state flows.
        assertInputInvalid(sideways, "resume must be SKIP, RETRY or RETURN");
    }

    /** The request is refused as INVALID_ARGUMENT, reason ANALYSIS_INPUT_INVALID, its description naming {@code problem}. */
    private void assertInputInvalid(AnalyzeHealRequest request, String problem) throws Exception {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> guard.analyzeHeal(request).await().atMost(TIMEOUT));
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
        ErrorInfo info = StatusProto.fromThrowable(e).getDetails(0).unpack(ErrorInfo.class);
        assertEquals("ANALYSIS_INPUT_INVALID", info.getReason());
        assertTrue(e.getStatus().getDescription().contains(problem), e::toString);
    }

    private AnalyzeHealResponse analyze(AnalysisInput input) {
        return guard.analyzeHeal(AnalysisProtos.request(input.healCode(), input.analysis(), input.policyJson())).await().atMost(TIMEOUT);
    }

    private CheckHealCodeResponse check(String code) {
        return guard.checkHealCode(CheckHealCodeRequest.newBuilder().setCode(code).build())
                .await().atMost(TIMEOUT);
    }
}
