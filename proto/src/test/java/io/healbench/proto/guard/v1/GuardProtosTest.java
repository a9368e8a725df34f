package io.healbench.proto.guard.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.healbench.proto.bench.v1.CreateRunRequest;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

class GuardProtosTest {

    @Test
    void everyDomainConstantHasItsMessageConstantAndBack() {
        for (io.healbench.common.guard.GuardMode mode : EnumSet.allOf(io.healbench.common.guard.GuardMode.class)) {
            assertEquals(mode, GuardProtos.mode(GuardProtos.mode(mode)));
        }
        for (io.healbench.common.guard.GuardStage stage : EnumSet.allOf(io.healbench.common.guard.GuardStage.class)) {
            for (io.healbench.common.guard.GuardVerdict verdict : EnumSet.allOf(io.healbench.common.guard.GuardVerdict.class)) {
                io.healbench.common.guard.GuardDecision decision = new io.healbench.common.guard.GuardDecision(4, stage, verdict, "why");
                assertEquals(decision, GuardProtos.decision(GuardProtos.decision(decision)));
            }
        }
        // Every message constant but the unset one has a domain constant: none was left out of the domain.
        assertEquals(GuardMode.values().length - 2, io.healbench.common.guard.GuardMode.values().length);
        assertEquals(GuardStage.values().length - 2, io.healbench.common.guard.GuardStage.values().length);
        assertEquals(GuardVerdict.values().length - 2, io.healbench.common.guard.GuardVerdict.values().length);
    }

    @Test
    void anUnsetModeIsTheDefaultAndAnUnknownOneIsRefused() {
        assertEquals(io.healbench.common.guard.GuardMode.ENFORCE, GuardProtos.mode(GuardMode.GUARD_MODE_UNSPECIFIED));
        // A mode number this build does not know, as a newer client may send it.
        GuardMode unknown = CreateRunRequest.newBuilder().setGuardModeValue(99).build().getGuardMode();
        assertEquals(GuardMode.UNRECOGNIZED, unknown);
        assertThrows(IllegalArgumentException.class, () -> GuardProtos.mode(unknown));
    }

    @Test
    void aDecisionWithoutStageOrVerdictIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> GuardProtos.decision(GuardDecision.newBuilder()
                .setStage(GuardStage.GATE).build()));
        assertThrows(IllegalArgumentException.class, () -> GuardProtos.decision(GuardDecision.newBuilder()
                .setVerdict(GuardVerdict.BLOCKED).build()));
        assertThrows(IllegalArgumentException.class, () -> GuardProtos.decision(GuardDecision.newBuilder()
                .setStageValue(42).setVerdict(GuardVerdict.BLOCKED).build()));
    }
}
