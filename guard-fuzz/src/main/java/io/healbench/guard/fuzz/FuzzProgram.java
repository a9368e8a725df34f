package io.healbench.guard.fuzz;

/**
 * One generated program and its oracle label, decided by construction, never by the gate.
 *
 * @param index     position in the run; with the run's seed it regenerates the program
 * @param code      the program text
 * @param exclusion the excluded construct injected, or null for a program inside HealCore
 * @param origin    how the program was built: "grammar" or "heal" (a mutated real heal)
 * @param construct where the injected construct stands (null when inside); a rejection must point into it
 * @param region    the whole injected text (null when inside); a diagnostic outside it blames code that is HealCore
 * @param mention   text the diagnostic's construct must contain (null: position only)
 */
public record FuzzProgram(int index, String code, Exclusion exclusion, String origin, Span construct, Span region,
                          String mention) {

    public boolean inside() {
        return exclusion == null;
    }

    /** The class counted in reports: "inside" or the exclusion's name. */
    public String label() {
        return inside() ? "inside" : exclusion.label();
    }
}
