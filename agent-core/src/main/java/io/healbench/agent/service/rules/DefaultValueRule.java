package io.healbench.agent.service.rules;

import io.healbench.agent.service.CrashObservation;
import java.util.List;
import java.util.Set;

/**
 * Exceptions about a value the statement could not use (ValueError, IndexError, and TypeError through
 * {@link TypeErrorRule}): targets that already hold a value keep it, since an older value is likelier right than
 * none, and the others become {@code None}.
 */
class DefaultValueRule implements HealRule {

    private final Set<String> exceptionTypes;

    DefaultValueRule(String... exceptionTypes) {
        this.exceptionTypes = Set.of(exceptionTypes);
    }

    @Override
    public boolean handles(CrashObservation crash) {
        return exceptionTypes.contains(crash.exceptionType());
    }

    @Override
    public String returnValue() {
        return "None";
    }

    @Override
    public List<String> assignmentHeals(CrashObservation crash, List<String> targets) {
        List<String> unbound = targets.stream().filter(target -> crash.local(target).isEmpty()).toList();
        return List.of(unbound.isEmpty() ? HealPlan.SKIP : HealRule.bindAll(unbound, "None"));
    }
}
