package io.healbench.guard.service.analysis;

import java.util.List;

/** The static verdict with its evidence: the witness flow (TAINTED) and what could not be followed (UNKNOWN). */
public record AnalysisResult(
        Verdict verdict,
        String source,
        List<WitnessStep> witness,
        Sink sink,
        List<Incomplete> incomplete,
        int functionsAnalyzed) {

    public static final String ANALYZER_VERSION = "healguard-static-1";

    public enum Verdict { TAINTED, CLEAN, UNKNOWN }

    /** One step of a flow: where, and what happened to the value. */
    public record WitnessStep(String file, int line, int col, String description) {}

    /** The protected operation a flow reaches and which of its inputs is tainted. */
    public record Sink(String op, String category, String keyInput, String file, int line, int col) {}

    /** A construct the analysis could not follow. */
    public record Incomplete(String file, int line, int col, String construct, String reason) {}

    /** One line for logs and guard decisions, e.g. {@code TAINTED: name:x -> os.remove (m.py:12)}. */
    public String summary() {
        return switch (verdict) {
            case TAINTED -> "TAINTED: " + source + " reaches " + sink.op() + " (" + sink.keyInput() + ") at " + sink.file() + ":"
                    + sink.line() + " in " + witness.size() + " steps";
            case CLEAN -> "CLEAN: no flow from the heal's sources to a protected operation (" + functionsAnalyzed + " function bodies)";
            case UNKNOWN -> "UNKNOWN: no flow found, but " + incomplete.size() + " construct(s) could not be followed"
                    + (incomplete.isEmpty() ? "" : ", first " + incomplete.get(0).construct() + " at " + incomplete.get(0).file()
                    + ":" + incomplete.get(0).line());
        };
    }
}
