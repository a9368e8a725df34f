package io.healbench.sandbox.service.heal;

import io.healbench.common.guard.HealAnalysis;

/** HealGuard's static stage as guard-service answers it (AnalyzeHeal). */
public interface StaticAnalysis {

    /** The verdict; throws {@link io.healbench.sandbox.service.SandboxException} when guard-service cannot answer. */
    StaticVerdict analyze(HealAnalysis analysis, String code, String policyJson);
}
