package io.healbench.analysis;

import java.util.Locale;

/**
 * The one class every ended attempt falls in. The last two are the harness's, not the agent's: they are left out of the
 * agent's rates and reported with their own counts and ids.
 */
public enum OutcomeClass {
    HEALED, NOT_HEALED, RERAISED, AGENT_ERROR, BUDGET, INFRASTRUCTURE, GRADER;

    /** The class's name in tables and JSON: {@code not healed}, {@code agent error}, ... */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }

    /** Whether the attempt says something about the agent (it counts in the agent's rates). */
    public boolean chargedToAgent() {
        return this != INFRASTRUCTURE && this != GRADER;
    }
}
