package io.healbench.proto.outcome.v1;

/**
 * The one mapping between the outcome enums ({@code io.healbench.common.outcome}) and their messages, for every
 * service's gRPC and messaging edge. The enums share their constants' names, so an unset or unknown wire value is the
 * only case to decide, and each method says what it does with it.
 */
public final class OutcomeProtos {

    private OutcomeProtos() {}

    public static ExitCause exitCause(io.healbench.common.outcome.ExitCause cause) {
        return ExitCause.valueOf(cause.name());
    }

    /**
     * @throws IllegalArgumentException when the cause is unset or unknown: an ended run always has one, and its sender is
     *         at fault
     */
    public static io.healbench.common.outcome.ExitCause exitCause(ExitCause cause) {
        if (cause == ExitCause.EXIT_CAUSE_UNSPECIFIED || cause == ExitCause.UNRECOGNIZED) {
            throw new IllegalArgumentException("an outcome needs a known exit cause, got " + cause.getNumber()
                    + (cause == ExitCause.UNRECOGNIZED ? " (unknown)" : " (unset)"));
        }
        return io.healbench.common.outcome.ExitCause.valueOf(cause.name());
    }

    public static FailureClass failureClass(io.healbench.common.outcome.FailureClass failureClass) {
        return FailureClass.valueOf(failureClass.name());
    }

    /**
     * Unset is {@link io.healbench.common.outcome.FailureClass#NONE}.
     *
     * @throws IllegalArgumentException for a value this build does not know: reading it as NONE would charge a harness
     *         failure to the agent
     */
    public static io.healbench.common.outcome.FailureClass failureClass(FailureClass failureClass) {
        return switch (failureClass) {
            case FAILURE_CLASS_UNSPECIFIED -> io.healbench.common.outcome.FailureClass.NONE;
            case UNRECOGNIZED -> throw new IllegalArgumentException(
                    "failure_class must be NONE, INFRASTRUCTURE, AGENT or GRADER, got the unknown value " + failureClass.getNumber());
            default -> io.healbench.common.outcome.FailureClass.valueOf(failureClass.name());
        };
    }

    /** The counters of one run, as every message that carries them spells them. */
    public static OutcomeSummary summary(boolean proceeded, boolean passed, int healPoints, int healsApplied,
                                         int healsRejected, io.healbench.common.outcome.ExitCause exitCause, long wallTimeMs) {
        return OutcomeSummary.newBuilder().setProceeded(proceeded).setPassed(passed).setHealPoints(healPoints)
                .setHealsApplied(healsApplied).setHealsRejected(healsRejected).setExitCause(exitCause(exitCause))
                .setWallTimeMs(wallTimeMs).build();
    }
}
