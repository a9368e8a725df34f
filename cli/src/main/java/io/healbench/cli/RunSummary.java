package io.healbench.cli;

import io.healbench.proto.bench.v1.Attempt;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A finished run's attempts counted by status and by failure class, with the first reason of each failure class, so a
 * run says plainly what happened without anyone opening its report.
 *
 * @param byStatus     attempts per {@link AttemptStatus} label, in {@link AttemptStatus#LABELS} order
 * @param failures     attempts per failure class that is not {@code none}: {@code agent}, {@code infrastructure}, {@code grader}
 * @param firstReasons the detail of the first attempt of each failure class in {@code failures} that has one
 */
record RunSummary(Map<String, Integer> byStatus, Map<String, Integer> failures, Map<String, String> firstReasons, int attempts) {

    /** The failure classes, as bench-service records them; each one is always counted, even at 0. */
    static final List<String> FAILURE_CLASSES = List.of("infrastructure", "grader", "agent");

    static RunSummary of(List<Attempt> attempts) {
        Map<String, Integer> byStatus = new LinkedHashMap<>();
        AttemptStatus.LABELS.forEach(label -> byStatus.put(label, 0));
        Map<String, Integer> failures = new LinkedHashMap<>();
        FAILURE_CLASSES.forEach(failureClass -> failures.put(failureClass, 0));
        Map<String, String> firstReasons = new LinkedHashMap<>();
        for (Attempt attempt : attempts) {
            byStatus.merge(AttemptStatus.of(attempt).label(), 1, Integer::sum);
            String failureClass = attempt.getFailureClass();
            if (failures.containsKey(failureClass)) {
                failures.merge(failureClass, 1, Integer::sum);
                if (!attempt.getDetail().isEmpty()) {
                    firstReasons.putIfAbsent(failureClass, attempt.getInstanceId() + ": " + attempt.getDetail());
                }
            }
        }
        return new RunSummary(byStatus, failures, firstReasons, attempts.size());
    }

    /** Attempts that failed outside the agent: they are kept out of the agent's rates. */
    int infrastructureFailures() {
        return failures.get("infrastructure") + failures.get("grader");
    }

    /** The denominator of the agent's rates. */
    int agentAttempts() {
        return attempts - infrastructureFailures();
    }

    void print(PrintStream out) {
        out.println();
        out.println("by status: " + byStatus.entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", ")));
        out.println("by failure class: " + failures.entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", ")));
        firstReasons.forEach((failureClass, reason) -> out.println("  first " + failureClass + " failure: "
                + (reason.length() > 400 ? reason.substring(0, 399) + "…" : reason)));
    }
}
