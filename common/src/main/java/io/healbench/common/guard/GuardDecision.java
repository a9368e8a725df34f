package io.healbench.common.guard;

import java.util.Objects;

/** One decision of HealGuard about the heal at {@code healPoint}; the one record of it in every service. */
public record GuardDecision(int healPoint, GuardStage stage, GuardVerdict verdict, String reason) {

    public GuardDecision {
        Objects.requireNonNull(stage, "stage");
        Objects.requireNonNull(verdict, "verdict");
        reason = reason == null ? "" : reason;
    }
}
