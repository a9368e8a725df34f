package io.healbench.sandbox.service.heal;

import io.healbench.common.guard.GuardMode;
import io.healbench.common.guard.GuardStage;
import io.healbench.common.guard.GuardVerdict;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.common.guard.GuardDecision;
import io.healbench.common.guard.HealAnalysis;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The static stage's decision on a dry-run heal (docs/healguard.md §1): guard-service's verdict on the instance's
 * merged policy, then the session's guard mode. enforce: TAINTED aborts, and so does a verdict that cannot be had
 * (fail closed); observe: everything is recorded and the heal is committed. CLEAN and UNKNOWN commit. The verdict
 * goes with the commit: a CLEAN one waives healrt's bool/None rule for the heal (docs/healguard.md §1).
 */
@ApplicationScoped
public class StaticGuard {

    private final StaticAnalysis analysis;
    private final ProtectedPolicies policies;

    public StaticGuard(StaticAnalysis analysis, ProtectedPolicies policies) {
        this.analysis = analysis;
        this.policies = policies;
    }

    public StaticDecision decide(GuardMode guardMode, String policyName, String code, HealAnalysis dryRun) {
        boolean enforce = guardMode != GuardMode.OBSERVE;
        int healPoint = dryRun.healPoint();
        StaticVerdict verdict;
        try {
            verdict = analysis.analyze(dryRun, code, policies.mergedJson(policyName));
        } catch (SandboxException e) {
            String reason = "static analysis unavailable" + (enforce ? " (fail closed)" : "") + ": " + e.getMessage();
            return new StaticDecision(!enforce, "HealGuard's " + reason,
                    refusal(healPoint, enforce, reason), "unavailable");
        }
        if (!verdict.tainted()) {
            return new StaticDecision(true, null, new GuardDecision(healPoint, GuardStage.STATIC, GuardVerdict.ACCEPTED, verdict.summary()), verdict.forRuntime());
        }
        return new StaticDecision(!enforce, "HealGuard's static stage found a flow into a protected operation: " + verdict.summary(),
                refusal(healPoint, enforce, verdict.summary()), verdict.forRuntime());
    }

    /** In observe mode a refusal is only recorded: the heal is committed all the same. */
    private static GuardDecision refusal(int healPoint, boolean enforce, String reason) {
        return new GuardDecision(healPoint, GuardStage.STATIC, enforce ? GuardVerdict.REJECTED : GuardVerdict.OBSERVED, reason);
    }
}
