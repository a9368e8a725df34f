package io.healbench.agent.service.rules;

import io.healbench.agent.service.AgentDecision;
import io.healbench.agent.service.AgentDecision.Heal;
import io.healbench.agent.service.AgentDecision.Reraise;
import io.healbench.agent.service.CrashObservation;
import io.healbench.common.heal.Resume;
import io.healbench.agent.service.RejectedHeal;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The ordered plan for a crash: the most specific heal first, then more generic ones, then a reraise, so that a heal
 * the gate or the dry run refused is replaced by a more conservative one. Whatever the rule, a {@code return}
 * statement returns the rule's value, an expression statement or an augmented assignment is skipped (its target
 * keeps its value), and every other statement kind is reraised: no default can stand in for what they do.
 */
final class HealPlan {

    /** The heal that changes nothing, so that resuming skips the failing statement. */
    static final String SKIP = "pass";

    private static final String RETURN_SLOT = "_return_";
    private static final Set<String> ASSIGNMENT_KINDS = Set.of("assign", "annassign");
    private static final Set<String> SKIPPABLE_KINDS = Set.of("expr", "augassign");

    private HealPlan() {
    }

    /**
     * The plan of {@code rule} for the crash; with {@code exitEarly} (a local repair of this call already failed) an
     * early return comes first.
     */
    static List<AgentDecision> of(HealRule rule, CrashObservation crash, boolean exitEarly) {
        List<AgentDecision> local = local(rule, crash);
        String kind = crash.statement().kind();
        if (!exitEarly || !crash.inFunction() || kind.equals("return") || kind.equals("raise")) {
            return local;
        }
        List<AgentDecision> plan = new ArrayList<>();
        plan.add(returning(EarlyReturn.value(crash)));
        plan.addAll(local);
        return plan;
    }

    /** The first step of the plan not already refused at this heal point. */
    static AgentDecision firstUnrefused(List<AgentDecision> plan, List<RejectedHeal> rejected) {
        Set<String> refused = rejected.stream().map(RejectedHeal::code).collect(Collectors.toSet());
        return plan.stream()
                .filter(step -> !(step instanceof Heal heal) || !refused.contains(heal.code()))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("a plan always ends with a reraise"));
    }

    private static List<AgentDecision> local(HealRule rule, CrashObservation crash) {
        String kind = crash.statement().kind();
        List<AgentDecision> plan = new ArrayList<>();
        rule.retryHeal(crash).ifPresent(code -> plan.add(new Heal(code, Resume.RETRY)));
        if (ASSIGNMENT_KINDS.contains(kind)) {
            List<String> targets = crash.statement().targets();
            if (targets.isEmpty() || !targets.stream().allMatch(StatementShapes::isName)) {
                rule.otherAssignmentHeal(crash).ifPresent(code -> plan.add(new Heal(code, Resume.SKIP)));
                if (plan.isEmpty()) {
                    return List.of(new Reraise("the failing assignment binds no plain name: "
                            + crash.statement().source()));
                }
            } else {
                rule.assignmentHeals(crash, targets).forEach(code -> plan.add(new Heal(code, Resume.SKIP)));
            }
        } else if (kind.equals("return")) {
            if (!crash.inFunction()) {
                return List.of(new Reraise("a return outside a function cannot be resumed by returning"));
            }
            plan.add(returning(rule.returnValue()));
        } else if (SKIPPABLE_KINDS.contains(kind)) {
            plan.add(new Heal(SKIP, Resume.SKIP));
        } else {
            return List.of(new Reraise("no rule heals a '" + kind + "' statement"));
        }
        plan.add(new Reraise("every candidate heal for " + crash.exceptionType() + " was refused"));
        return plan;
    }

    private static Heal returning(String value) {
        return new Heal(RETURN_SLOT + " = " + value, Resume.RETURN);
    }
}
