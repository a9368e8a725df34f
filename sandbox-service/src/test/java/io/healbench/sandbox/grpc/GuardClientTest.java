package io.healbench.sandbox.grpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.healbench.common.guard.HealAnalysis;
import io.healbench.common.heal.Resume;
import io.healbench.proto.guard.v1.AnalyzeHealRequest;
import io.healbench.proto.guard.v1.AnalyzeHealResponse;
import io.healbench.proto.guard.v1.CheckHealCodeRequest;
import io.healbench.proto.guard.v1.CheckHealCodeResponse;
import io.healbench.proto.guard.v1.Diagnostic;
import io.healbench.proto.guard.v1.GuardService;
import io.healbench.proto.guard.v1.StaticVerdict;
import io.healbench.sandbox.config.SandboxConfig;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.heal.GateAnswer;
import io.smallrye.mutiny.Uni;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The sandbox's one client of guard-service fails closed: an answer that does not arrive is GUARD_UNAVAILABLE, never an
 * accepted heal or a clean verdict; only the gate's own refusal of a request (INVALID_ARGUMENT) is a rejection.
 */
class GuardClientTest {

    private static final HealAnalysis ANALYSIS = new HealAnalysis(1, List.of(), false,
            new HealAnalysis.CrashPoint("app.py", "f", "f", 1, 0, 1, 5, "assign", Resume.SKIP, List.of()), List.of(), false);

    @Test
    void theGatesAnswerCarriesItsDiagnostics() {
        GuardClient client = client(Uni.createFrom().item(CheckHealCodeResponse.newBuilder().setAllowed(false).setGateVersion("g1")
                .addDiagnostics(Diagnostic.newBuilder().setLine(1).setColumn(4).setConstruct("lambda").setReason("not HealCore"))
                .build()), null);

        assertEquals(new GateAnswer(false, List.of("line 1, column 4: lambda - not HealCore"), "g1"), client.check("f = lambda: 1"));
    }

    @Test
    void aRequestTheGateRefusesIsARejectionNamingWhy() {
        GuardClient client = client(Uni.createFrom().failure(
                Status.INVALID_ARGUMENT.withDescription("heal code of 70000 bytes exceeds 65536").asRuntimeException()), null);

        GateAnswer answer = client.check("x = 1");
        assertFalse(answer.allowed());
        assertEquals(List.of("heal code of 70000 bytes exceeds 65536"), answer.diagnostics());
    }

    @Test
    void aGateThatCannotAnswerIsUnavailableNotAnAcceptance() {
        SandboxException down = assertThrows(SandboxException.class,
                () -> client(Uni.createFrom().failure(Status.UNAVAILABLE.asRuntimeException()), null).check("x = 1"));
        assertUnavailable(down, "CheckHealCode");

        SandboxException silent = assertThrows(SandboxException.class,
                () -> client(Uni.createFrom().nothing(), null).check("x = 1"));
        assertUnavailable(silent, "did not answer within 1 s");
    }

    @Test
    void theStaticStagesVerdictComesBackAndNoAnswerIsUnavailable() {
        GuardClient answering = client(null, Uni.createFrom().item(AnalyzeHealResponse.newBuilder()
                .setVerdict(StaticVerdict.TAINTED).setSource("name:x").build()));
        assertEquals("TAINTED", answering.analyze(ANALYSIS, "x = 1", "{}").verdict());

        // Even the analysis's refusal of its input is no verdict: in enforce mode the heal is not committed.
        SandboxException refused = assertThrows(SandboxException.class, () -> client(null,
                Uni.createFrom().failure(Status.INVALID_ARGUMENT.asRuntimeException())).analyze(ANALYSIS, "x = 1", "{}"));
        assertUnavailable(refused, "AnalyzeHeal");
        SandboxException silent = assertThrows(SandboxException.class,
                () -> client(null, Uni.createFrom().nothing()).analyze(ANALYSIS, "x = 1", "{}"));
        assertUnavailable(silent, "did not answer within 1 s");
    }

    private static void assertUnavailable(SandboxException e, String text) {
        assertEquals(SandboxException.Kind.UNAVAILABLE, e.kind());
        assertEquals("GUARD_UNAVAILABLE", e.reason());
        assertTrue(e.getMessage().contains(text), e::getMessage);
    }

    private static GuardClient client(Uni<CheckHealCodeResponse> gate, Uni<AnalyzeHealResponse> analysis) {
        GuardService guard = new GuardService() {
            @Override
            public Uni<CheckHealCodeResponse> checkHealCode(CheckHealCodeRequest request) {
                return gate;
            }

            @Override
            public Uni<AnalyzeHealResponse> analyzeHeal(AnalyzeHealRequest request) {
                return analysis;
            }
        };
        // Only the two timeouts are read.
        SandboxConfig config = (SandboxConfig) Proxy.newProxyInstance(SandboxConfig.class.getClassLoader(),
                new Class<?>[] {SandboxConfig.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "gateTimeout", "analysisTimeout" -> Duration.ofSeconds(1);
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        return new GuardClient(guard, config);
    }
}
