package io.healbench.agent.service.rules;

import io.healbench.agent.service.CrashObservation;
import io.healbench.agent.service.ObservedLocal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * KeyError: a missing key gets a default instead of failing the lookup. {@code T = M[K]} with the mapping reachable
 * from a local becomes {@code T = M.get(K)}; otherwise the loads {@code M[K]} of a dict-typed local M in the value
 * become {@code M.get(K, D)}, D being {@code 0} for an operand of an arithmetic operator (the neutral start of an
 * accumulator, {@code d[k] = d[k] + n}) and {@code None} otherwise; then plain targets become {@code None}.
 */
final class MissingKeyRule implements HealRule {

    @Override
    public boolean handles(CrashObservation crash) {
        return crash.exceptionType().equals("KeyError");
    }

    @Override
    public String returnValue() {
        return "None";
    }

    @Override
    public List<String> assignmentHeals(CrashObservation crash, List<String> targets) {
        List<String> heals = new ArrayList<>();
        lookupWithGet(crash, targets).or(() -> missingKeyDefaults(crash)).ifPresent(heals::add);
        heals.add(HealRule.bindAll(targets, "None"));
        return heals;
    }

    @Override
    public Optional<String> otherAssignmentHeal(CrashObservation crash) {
        return missingKeyDefaults(crash);
    }

    /** {@code T = M[K]} as {@code T = M.get(K)}, when T is the one target and M is reachable from a local. */
    private static Optional<String> lookupWithGet(CrashObservation crash, List<String> targets) {
        return StatementShapes.subscriptRead(crash.statement().source())
                .filter(read -> targets.equals(List.of(read.target())))
                .filter(read -> isMappingReachable(read, crash))
                .map(read -> read.target() + " = " + read.mapping() + ".get("
                        + (StatementShapes.isTupleKey(read.key()) ? "(" + read.key() + ")" : read.key()) + ")");
    }

    /**
     * The assignment with its value's loads {@code M[K]} of a dict-typed local M rewritten to {@code M.get(K, D)}. A
     * key that is a local whose repr is not the missing key is left alone: that load did not fail.
     */
    private static Optional<String> missingKeyDefaults(CrashObservation crash) {
        return StatementShapes.assignment(crash.statement().source()).flatMap(assignment ->
                StatementShapes.rewriteLoads(assignment.value(), load -> {
                    if (crash.local(load.mapping()).filter(MissingKeyRule::isMappingType).isEmpty()) {
                        return Optional.empty();
                    }
                    if (StatementShapes.isName(load.key()) && crash.local(load.key())
                            .filter(key -> !key.repr().equals(crash.exceptionMessage())).isPresent()) {
                        return Optional.empty();
                    }
                    return Optional.of(load.arithmeticOperand() ? "0" : "None");
                }).map(value -> assignment.target() + " = " + value));
    }

    /**
     * The mapping is read from a local: a plain name must be a local whose type is a mapping; an attribute path must
     * start at a local (its type is not observable, so the heal may still be refused, and the plan then falls back
     * to {@code None}).
     */
    private static boolean isMappingReachable(StatementShapes.SubscriptRead read, CrashObservation crash) {
        var root = crash.local(read.root());
        if (root.isEmpty()) {
            return false;
        }
        return !read.mapping().equals(read.root()) || isMappingType(root.get());
    }

    private static boolean isMappingType(ObservedLocal local) {
        String type = local.type().toLowerCase();
        return type.contains("dict") || type.contains("mapping") || type.equals("counter")
                || type.equals("chainmap");
    }
}
