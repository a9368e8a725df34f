package io.healbench.sandbox.service.session;

import io.healbench.sandbox.service.model.CrashContext;
import io.healbench.common.guard.GuardDecision;
import io.healbench.common.guard.HealAnalysis;
import io.healbench.sandbox.service.model.HealOutcome;
import io.healbench.sandbox.service.model.Outcome;
import io.healbench.sandbox.service.model.ProbeOutcome;

/** One decoded line from the runtime. */
sealed interface RuntimeMessage {

    record Hello(long pid, String python, int protocol) implements RuntimeMessage {}

    record Crash(CrashContext context) implements RuntimeMessage {}

    record ProbeReply(String id, ProbeOutcome outcome) implements RuntimeMessage {}

    /** The first answer to a heal sent for analysis: its analysis, or its result when the re-check or the dry run failed. */
    sealed interface HealAnswer extends RuntimeMessage {}

    record HealReply(String id, HealOutcome outcome) implements HealAnswer {}

    /** A heal's dry run passed: its Δk and the code after it, for the static stage; the runtime awaits commit or abort. */
    record HealAnalysisReady(String id, HealAnalysis analysis) implements HealAnswer {}

    /** A guard decision the runtime took (its dynamic guard or its own HealCore re-check). */
    record GuardEvent(GuardDecision decision) implements RuntimeMessage {}

    /** Any other runtime event, kept as a diagnostic line. */
    record Note(String kind, String json) implements RuntimeMessage {}

    record Finished(Outcome outcome) implements RuntimeMessage {}

    /** A line that is not a valid message; reported, never fatal. */
    record Malformed(String line, String problem) implements RuntimeMessage {}
}
