package io.healbench.sandbox.service.model;

import io.healbench.common.guard.GuardDecision;
import java.time.Instant;

/** One entry of a session's event log, numbered from 1 in the order it happened. */
public record SessionEvent(String session, long sequence, Instant time, Payload payload) {

    /** What happened. */
    public sealed interface Payload permits Crashed, ProbeAnswered, HealAnswered, GuardDecided, Output, Finished {}

    public record Crashed(CrashContext context) implements Payload {}

    public record ProbeAnswered(ProbeOutcome result) implements Payload {}

    public record HealAnswered(HealOutcome result) implements Payload {}

    public record GuardDecided(GuardDecision decision) implements Payload {}

    /** Program output (stdout or stderr) or a diagnostic of the sandbox about the session. */
    public record Output(String text) implements Payload {}

    public record Finished(Outcome outcome) implements Payload {}
}
