package io.healbench.cli;

import io.healbench.analysis.OutcomeClass;
import io.healbench.proto.bench.v1.Attempt;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A finished run's attempts counted by outcome class, with the first reason of each class that is not a heal, so a run
 * says plainly what happened without anyone opening its report.
 *
 * @param byClass      attempts per outcome class label, every class listed, in {@link OutcomeClass} order
 * @param firstReasons the detail of the first attempt of each failing class that has one
 */
record RunSummary(Map<String, Integer> byClass, Map<String, String> firstReasons, int attempts, int harnessFailures) {

    static RunSummary of(List<Attempt> attempts) {
        Map<String, Integer> byClass = new LinkedHashMap<>();
        AttemptStatus.LABELS.forEach(label -> byClass.put(label, 0));
        Map<String, String> firstReasons = new LinkedHashMap<>();
        int harnessFailures = 0;
        for (Attempt attempt : attempts) {
            AttemptStatus status = AttemptStatus.of(attempt);
            byClass.merge(status.label(), 1, Integer::sum);
            harnessFailures += status.outcome().chargedToAgent() ? 0 : 1;
            if (status.outcome() != OutcomeClass.HEALED && !status.reason().isEmpty()) {
                firstReasons.putIfAbsent(status.label(), attempt.getInstanceId() + ": " + status.reason());
            }
        }
        return new RunSummary(byClass, firstReasons, attempts.size(), harnessFailures);
    }

    /** Attempts that failed outside the agent (infrastructure, grader): they are kept out of the agent's rates. */
    int infrastructureFailures() {
        return harnessFailures;
    }

    /** The denominator of the agent's rates. */
    int agentAttempts() {
        return attempts - harnessFailures;
    }

    void print(PrintStream out) {
        out.println();
        out.println("by outcome: " + byClass.entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", ")));
        firstReasons.forEach((label, reason) -> out.println("  first " + label + ": "
                + (reason.length() > 400 ? reason.substring(0, 399) + "…" : reason)));
    }
}
