package io.healbench.sandbox.service.heal;

import io.healbench.common.heal.Resume;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.healbench.common.guard.GuardDecision;
import io.healbench.common.guard.GuardMode;
import io.healbench.common.guard.GuardStage;
import io.healbench.common.guard.GuardVerdict;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxException.Kind;
import io.healbench.common.guard.HealAnalysis;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The static stage's decision by guard mode and verdict, fail-closed, and the merged policies it sends. */
class StaticGuardTest {

    private static final Path POLICIES = Path.of(System.getProperty("healbench.home", "../..")).resolve("dataset/policies");
    private static final HealAnalysis DRY_RUN = new HealAnalysis(3, List.of(), false,
            new HealAnalysis.CrashPoint("m.py", "f", "f", 1, 0, 1, 1, "assign", Resume.SKIP, List.of()), List.of(), false);
    private static final StaticVerdict TAINTED = new StaticVerdict("TAINTED", "name:x", "os.remove", "path",
            List.of("m.py:1 heal source name:x", "m.py:2 key input path of os.remove()"), List.of());
    private static final StaticVerdict UNKNOWN = new StaticVerdict("UNKNOWN", "", "", "", List.of(), List.of("dynamic call f(...) at m.py:2"));

    private final List<String> policiesSent = new ArrayList<>();

    private StaticGuard guard(StaticVerdict answer) {
        return new StaticGuard((analysis, code, policy) -> {
            policiesSent.add(policy);
            return answer;
        }, new ProtectedPolicies(POLICIES));
    }

    private static StaticGuard unreachable() {
        return new StaticGuard((analysis, code, policy) -> {
            throw new SandboxException(Kind.UNAVAILABLE, "GUARD_UNAVAILABLE", "AnalyzeHeal failed: UNAVAILABLE");
        }, new ProtectedPolicies(POLICIES));
    }

    @Test
    void enforceAbortsTaintedAndCommitsTheRest() {
        StaticDecision tainted = guard(TAINTED).decide(GuardMode.ENFORCE, "default", "x = 1", DRY_RUN);
        assertFalse(tainted.commit());
        assertEquals(new GuardDecision(3, GuardStage.STATIC, GuardVerdict.REJECTED, TAINTED.summary()), tainted.decision());
        assertTrue(tainted.abortReason().contains("os.remove"), tainted.abortReason());
        assertTrue(TAINTED.summary().startsWith("TAINTED: name:x reaches os.remove (path); flow: m.py:1 heal source"), TAINTED.summary());

        assertEquals("tainted", tainted.verdict());

        StaticDecision unknown = guard(UNKNOWN).decide(GuardMode.ENFORCE, "default", "x = 1", DRY_RUN);
        assertTrue(unknown.commit());
        assertEquals("unknown", unknown.verdict(), "heal_commit's static_verdict: the bool/None rule stays");
        assertEquals(GuardVerdict.ACCEPTED, unknown.decision().verdict());
        assertEquals("UNKNOWN: no flow found; not followed: dynamic call f(...) at m.py:2", unknown.decision().reason());
    }

    @Test
    void aCleanVerdictCommitsAndGoesToTheRuntimeAsClean() {
        StaticVerdict clean = new StaticVerdict("CLEAN", "", "", "", List.of(), List.of());
        for (GuardMode mode : List.of(GuardMode.ENFORCE, GuardMode.OBSERVE)) {
            StaticDecision decided = guard(clean).decide(mode, "default", "x = None", DRY_RUN);
            assertTrue(decided.commit());
            assertEquals("clean", decided.verdict(), "a CLEAN verdict waives healrt's bool/None rule for the heal");
            assertEquals(GuardVerdict.ACCEPTED, decided.decision().verdict());
        }
        StaticVerdict unspecified = new StaticVerdict("VERDICT_UNSPECIFIED", "", "", "", List.of(), List.of());
        assertEquals("unknown", guard(unspecified).decide(GuardMode.ENFORCE, "default", "x = None", DRY_RUN).verdict(),
                "only CLEAN waives anything");
    }

    @Test
    void observeCommitsTaintedAndRecordsIt() {
        StaticDecision tainted = guard(TAINTED).decide(GuardMode.OBSERVE, "default", "x = 1", DRY_RUN);
        assertTrue(tainted.commit());
        assertEquals(GuardVerdict.OBSERVED, tainted.decision().verdict());
    }

    @Test
    void noVerdictFailsClosedInEnforceOnly() {
        StaticDecision enforced = unreachable().decide(GuardMode.ENFORCE, "default", "x = 1", DRY_RUN);
        assertFalse(enforced.commit());
        assertEquals(GuardVerdict.REJECTED, enforced.decision().verdict());
        assertTrue(enforced.decision().reason().startsWith("static analysis unavailable (fail closed): AnalyzeHeal failed"),
                enforced.decision().reason());
        StaticDecision observed = unreachable().decide(GuardMode.OBSERVE, "default", "x = 1", DRY_RUN);
        assertTrue(observed.commit());
        assertEquals(GuardVerdict.OBSERVED, observed.decision().verdict());
        assertEquals("unavailable", observed.verdict());
        // A policy that cannot be read is no verdict either.
        StaticDecision missingPolicy = guard(TAINTED).decide(GuardMode.ENFORCE, "no-such-policy", "x = 1", DRY_RUN);
        assertFalse(missingPolicy.commit());
        assertTrue(missingPolicy.decision().reason().contains("no policy file"), missingPolicy.decision().reason());
    }

    @Test
    void subjectPoliciesAreMergedOntoTheDefault() throws Exception {
        guard(UNKNOWN).decide(GuardMode.ENFORCE, "jinja2", "x = 1", DRY_RUN);
        JsonNode merged = new ObjectMapper().readTree(policiesSent.get(0));
        assertEquals("jinja2", merged.get("id").asText());
        JsonNode fileWrite = merged.get("operations").get("file_write");
        assertEquals("open", fileWrite.get(0).get("op").asText(), "default's entries first");
        assertEquals("jinja2.bccache.FileSystemBytecodeCache.dump_bytecode", fileWrite.get(fileWrite.size() - 4).get("op").asText());
        assertTrue(merged.get("operations").has("template_source"), "the subject's own categories are added");
        assertTrue(merged.get("operations").has("process"), "default's categories stay");
        assertTrue(merged.get("operations").get("file_delete").get(0).get("index").isInt());
        assertThrows(SandboxException.class, () -> new ProtectedPolicies(POLICIES).mergedJson("../etc/passwd"));
    }
}
