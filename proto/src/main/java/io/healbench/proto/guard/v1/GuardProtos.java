package io.healbench.proto.guard.v1;

/**
 * The one mapping between HealGuard's mode and decisions ({@code io.healbench.common.guard}) and their messages, for every
 * service's gRPC and messaging edge. The enums share their constants' names, so an unset or unknown wire value is the
 * only case to decide, and each method says what it does with it.
 */
public final class GuardProtos {

    private GuardProtos() {}

    /**
     * A request's guard mode: unset is {@link io.healbench.common.guard.GuardMode#DEFAULT}.
     *
     * @throws IllegalArgumentException for a value this build does not know; callers answer INVALID_ARGUMENT, reason
     *         GUARD_MODE_INVALID
     */
    public static io.healbench.common.guard.GuardMode mode(GuardMode mode) {
        return switch (mode) {
            case GUARD_MODE_UNSPECIFIED -> io.healbench.common.guard.GuardMode.DEFAULT;
            case UNRECOGNIZED -> throw new IllegalArgumentException(
                    "guard_mode must be ENFORCE, OBSERVE or OFF, got the unknown value " + mode.getNumber());
            default -> io.healbench.common.guard.GuardMode.valueOf(mode.name());
        };
    }

    public static GuardMode mode(io.healbench.common.guard.GuardMode mode) {
        return GuardMode.valueOf(mode.name());
    }

    public static GuardDecision decision(io.healbench.common.guard.GuardDecision decision) {
        return GuardDecision.newBuilder().setHealPoint(decision.healPoint()).setStage(GuardStage.valueOf(decision.stage().name()))
                .setVerdict(GuardVerdict.valueOf(decision.verdict().name())).setReason(decision.reason()).build();
    }

    /**
     * @throws IllegalArgumentException when the stage or the verdict is unset or unknown: a decision without them says
     *         nothing, and its sender is at fault
     */
    public static io.healbench.common.guard.GuardDecision decision(GuardDecision decision) {
        if (decision.getStage() == GuardStage.GUARD_STAGE_UNSPECIFIED || decision.getStage() == GuardStage.UNRECOGNIZED
                || decision.getVerdict() == GuardVerdict.GUARD_VERDICT_UNSPECIFIED || decision.getVerdict() == GuardVerdict.UNRECOGNIZED) {
            throw new IllegalArgumentException("a guard decision needs a known stage and verdict, got " + decision.getStageValue()
                    + " and " + decision.getVerdictValue());
        }
        return new io.healbench.common.guard.GuardDecision(decision.getHealPoint(),
                io.healbench.common.guard.GuardStage.valueOf(decision.getStage().name()),
                io.healbench.common.guard.GuardVerdict.valueOf(decision.getVerdict().name()), decision.getReason());
    }
}
