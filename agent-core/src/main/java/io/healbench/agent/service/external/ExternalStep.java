package io.healbench.agent.service.external;

import io.healbench.agent.service.CrashObservation;
import io.healbench.agent.service.llm.CrashBrief;
import io.healbench.agent.service.llm.WorkspacePaths;
import io.healbench.common.outcome.ExitCause;

/** Where an external attempt's program stands: paused at a crash (the heal point), or ended. */
public record ExternalStep(CrashObservation crash, Finished finished) {

    /** The program ended; {@code proceeded} when it ran to its end without an unhandled exception. */
    public record Finished(boolean proceeded, ExitCause exitCause, int healPoints) {
    }

    public static ExternalStep crashed(CrashObservation crash) {
        return new ExternalStep(crash, null);
    }

    static ExternalStep ended(Finished finished) {
        return new ExternalStep(null, finished);
    }

    public boolean isFinished() {
        return finished != null;
    }

    /** As a text observation: the crash brief the internal agents see, or the end. */
    public String render() {
        if (finished != null) {
            return "The program ended (" + finished.exitCause().wireName() + ") after " + finished.healPoints() + " heal point(s); "
                    + (finished.proceeded() ? "it ran to its end." : "it did not run to its end.") + " The attempt is over.";
        }
        return WorkspacePaths.relative(CrashBrief.render(crash));
    }
}
