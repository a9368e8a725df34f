package io.healbench.common.guard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.EnumSet;
import org.junit.jupiter.api.Test;

class GuardWireNamesTest {

    @Test
    void everyConstantReadsBackFromItsWireName() {
        EnumSet.allOf(GuardMode.class).forEach(m -> assertEquals(m, GuardMode.parse(m.wireName())));
        EnumSet.allOf(GuardStage.class).forEach(s -> assertEquals(s, GuardStage.parse(s.wireName())));
        EnumSet.allOf(GuardVerdict.class).forEach(v -> assertEquals(v, GuardVerdict.parse(v.wireName())));
        assertEquals("observe", GuardMode.OBSERVE.wireName());
    }

    @Test
    void anUnknownSpellingIsRefusedWithTheAcceptedOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> GuardMode.parse("lenient"));
        assertEquals("guard mode must be enforce, observe or off, got 'lenient'", e.getMessage());
        // The wire names are lower case: the constants' own names are not accepted as text.
        assertThrows(IllegalArgumentException.class, () -> GuardMode.parse("ENFORCE"));
        assertThrows(IllegalArgumentException.class, () -> GuardVerdict.parse(""));
        assertThrows(IllegalArgumentException.class, () -> GuardStage.parse(null));
    }

    @Test
    void aDecisionNeedsItsStageAndVerdict() {
        assertThrows(NullPointerException.class, () -> new GuardDecision(1, null, GuardVerdict.BLOCKED, "r"));
        assertEquals("", new GuardDecision(1, GuardStage.GATE, GuardVerdict.ACCEPTED, null).reason());
    }
}
