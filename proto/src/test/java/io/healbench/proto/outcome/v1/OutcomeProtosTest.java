package io.healbench.proto.outcome.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.EnumSet;
import org.junit.jupiter.api.Test;

class OutcomeProtosTest {

    @Test
    void everyDomainConstantHasItsMessageConstantAndBack() {
        for (io.healbench.common.outcome.ExitCause cause : EnumSet.allOf(io.healbench.common.outcome.ExitCause.class)) {
            assertEquals(cause, OutcomeProtos.exitCause(OutcomeProtos.exitCause(cause)));
        }
        for (io.healbench.common.outcome.FailureClass failure : EnumSet.allOf(io.healbench.common.outcome.FailureClass.class)) {
            assertEquals(failure, OutcomeProtos.failureClass(OutcomeProtos.failureClass(failure)));
        }
        // Every message constant but the unset one has a domain constant: none was left out of the domain.
        assertEquals(ExitCause.values().length - 2, io.healbench.common.outcome.ExitCause.values().length);
        assertEquals(FailureClass.values().length - 2, io.healbench.common.outcome.FailureClass.values().length);
    }

    @Test
    void anUnsetOrUnknownCauseIsRefusedAndAnUnsetFailureClassIsNone() {
        assertThrows(IllegalArgumentException.class, () -> OutcomeProtos.exitCause(ExitCause.EXIT_CAUSE_UNSPECIFIED));
        ExitCause unknown = OutcomeSummary.newBuilder().setExitCauseValue(99).build().getExitCause();
        assertEquals(ExitCause.UNRECOGNIZED, unknown);
        assertThrows(IllegalArgumentException.class, () -> OutcomeProtos.exitCause(unknown));
        assertEquals(io.healbench.common.outcome.FailureClass.NONE, OutcomeProtos.failureClass(FailureClass.FAILURE_CLASS_UNSPECIFIED));
        assertThrows(IllegalArgumentException.class, () -> OutcomeProtos.failureClass(FailureClass.UNRECOGNIZED));
    }

    @Test
    void theSummaryCarriesEveryCounter() {
        OutcomeSummary summary = OutcomeProtos.summary(true, false, 3, 2, 1, io.healbench.common.outcome.ExitCause.LIMIT, 812);
        assertEquals(OutcomeSummary.newBuilder().setProceeded(true).setHealPoints(3).setHealsApplied(2).setHealsRejected(1)
                .setExitCause(ExitCause.LIMIT).setWallTimeMs(812).build(), summary);
    }
}
