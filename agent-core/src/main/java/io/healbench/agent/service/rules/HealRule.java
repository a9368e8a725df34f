package io.healbench.agent.service.rules;

import io.healbench.agent.service.CrashObservation;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The repairs for one family of exceptions. A rule only writes the heals its exception calls for; which of them a
 * statement can take (an assignment's targets, a return's value, a skip) is decided by {@link HealPlan}, the same for
 * every rule, so that a rule never has to know about statement kinds it cannot repair.
 */
interface HealRule {

    /** Whether the crash's exception is one this rule repairs. */
    boolean handles(CrashObservation crash);

    /** What a failing {@code return} statement returns instead. */
    String returnValue();

    /**
     * Heals for an assignment whose targets are all plain names, most specific first; never empty, since the
     * last one only binds the targets.
     */
    List<String> assignmentHeals(CrashObservation crash, List<String> targets);

    /** A heal for an assignment to a subscript or an attribute; without one, such an assignment is reraised. */
    default Optional<String> otherAssignmentHeal(CrashObservation crash) {
        return Optional.empty();
    }

    /** A heal after which the failing statement is run again, tried before every heal that skips it. */
    default Optional<String> retryHeal(CrashObservation crash) {
        return Optional.empty();
    }

    /** Heal code binding each of {@code names} to {@code value}. */
    static String bindAll(List<String> names, String value) {
        return names.stream().map(name -> name + " = " + value).collect(Collectors.joining("\n"));
    }
}
