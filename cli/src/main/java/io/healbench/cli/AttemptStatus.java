package io.healbench.cli;

import io.healbench.proto.bench.v1.Attempt;
import java.util.List;

/**
 * What became of one attempt, in one word for the results table, and a short reason. The failure classes come first:
 * an attempt the platform failed says nothing about the agent, whatever its other fields hold.
 *
 * @param label  {@code healed}, {@code not healed}, {@code reraised}, {@code agent error} or {@code infrastructure}
 * @param reason a few words on why, for people
 */
record AttemptStatus(String label, String reason) {

    static final String HEALED = "healed";
    static final String NOT_HEALED = "not healed";
    static final String RERAISED = "reraised";
    static final String AGENT_ERROR = "agent error";
    static final String INFRASTRUCTURE = "infrastructure";

    /** The labels in the order the summary lists them. */
    static final List<String> LABELS = List.of(HEALED, NOT_HEALED, RERAISED, AGENT_ERROR, INFRASTRUCTURE);

    static AttemptStatus of(Attempt attempt) {
        switch (attempt.getFailureClass()) {
            case "infrastructure", "grader" -> {
                return new AttemptStatus(INFRASTRUCTURE, attempt.getDetail());
            }
            case "agent" -> {
                return new AttemptStatus(AGENT_ERROR, attempt.getDetail());
            }
            default -> { }
        }
        if (attempt.getHealsApplied() == 0) {
            return new AttemptStatus(RERAISED, attempt.getHealsRejected() > 0
                    ? attempt.getHealsRejected() + " heal" + (attempt.getHealsRejected() == 1 ? "" : "s") + " refused"
                    : "no heal submitted");
        }
        if (attempt.getProceeded()) {
            return new AttemptStatus(HEALED, attempt.getPassed() ? "the target test passed" : "the target test failed after proceeding");
        }
        String why = attempt.getDetail().isEmpty() ? attempt.getExitCause() : attempt.getDetail();
        return new AttemptStatus(NOT_HEALED, why);
    }

    /** The reason cut to {@code width} characters for the table, on one line. */
    String shortReason(int width) {
        String line = reason.replaceAll("\\s+", " ").strip();
        return line.length() <= width ? line : line.substring(0, width - 1) + "…";
    }
}
