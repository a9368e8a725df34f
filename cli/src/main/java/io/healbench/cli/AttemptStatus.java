package io.healbench.cli;

import io.healbench.analysis.OutcomeClass;
import io.healbench.proto.bench.v1.Attempt;
import java.util.Arrays;
import java.util.List;

/**
 * What became of one attempt: its outcome class as bench-service graded it (docs/runs.md, "Outcome classes"), and a
 * short reason for people.
 */
record AttemptStatus(OutcomeClass outcome, String reason) {

    /** The labels in the order the summary lists them. */
    static final List<String> LABELS = Arrays.stream(OutcomeClass.values()).map(OutcomeClass::label).toList();

    static AttemptStatus of(Attempt attempt) {
        OutcomeClass outcome = RunRecords.outcome(attempt);
        String reason = switch (outcome) {
            case HEALED -> attempt.getSummary().getPassed() ? "the target test passed" : "the target test failed after proceeding";
            case RERAISED -> attempt.getSummary().getHealsRejected() > 0
                    ? attempt.getSummary().getHealsRejected() + " heal" + (attempt.getSummary().getHealsRejected() == 1 ? "" : "s") + " refused"
                    : "no heal submitted";
            case NOT_HEALED, BUDGET -> attempt.getDetail().isEmpty()
                    ? String.join(", ", attempt.getUsage().getHealPointExitsList()) + " " + RunRecords.exitCause(attempt)
                    : attempt.getDetail();
            case AGENT_ERROR, INFRASTRUCTURE, GRADER -> attempt.getDetail().isEmpty() && attempt.getState() == Attempt.State.CANCELLED
                    ? "the run was cancelled" : attempt.getDetail();
        };
        return new AttemptStatus(outcome, reason.strip());
    }

    String label() {
        return outcome.label();
    }

    /** The reason cut to {@code width} characters for the table, on one line. */
    String shortReason(int width) {
        String line = reason.replaceAll("\\s+", " ").strip();
        return line.length() <= width ? line : line.substring(0, width - 1) + "…";
    }
}
