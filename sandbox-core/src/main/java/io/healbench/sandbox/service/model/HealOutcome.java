package io.healbench.sandbox.service.model;

import io.healbench.common.heal.Resume;
import io.healbench.common.guard.GuardDecision;
import java.util.List;

/**
 * The answer to a heal. {@code applied} is true when the live process took the heal and resumed; otherwise
 * {@code error} says why (refused by the gate, re-check refused by the runtime, or the code raised).
 */
public record HealOutcome(
        boolean applied,
        HealError error,
        String traceback,
        List<String> changed,
        Resume resume,
        List<GuardDecision> guardDecisions) {

    /** Why a heal was not applied. {@code rejected} means refused before it ran; otherwise it ran and failed. */
    public record HealError(boolean rejected, String reason, String message) {}
}
