package io.healbench.agent.service.external;

import java.util.List;

/**
 * The answer to one action of an external agent: the sandbox's answer typed ({@code value}: a
 * {@link io.healbench.agent.service.SessionTools} reply, the crash, a {@link Healed}, an {@link ExternalStep} after a
 * reraise, or nothing), the same answer as the text observation an internal agent would see, and the budget left.
 */
public record ExternalReply(Object value, String observation, ExternalBudget budget) {

    /** A heal was applied: the locations it changed, and where the program stands now. */
    public record Healed(List<String> changed, ExternalStep step) {
        public Healed {
            changed = List.copyOf(changed);
        }
    }

    /** The next step, when this action moved the program on (a heal or a reraise). */
    public ExternalStep step() {
        return value instanceof Healed healed ? healed.step() : value instanceof ExternalStep step ? step : null;
    }
}
