package io.healbench.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class McNemarTest {

    private static final double EXACT = 1e-12;

    @Test
    void sixDiscordantPairsAllOneWayGiveTwiceOneIn64() {
        assertEquals(0.03125, McNemar.exactTwoSidedP(0, 6), EXACT);
        assertEquals(0.03125, McNemar.exactTwoSidedP(6, 0), EXACT, "the test is symmetric");
    }

    @Test
    void smallCasesMatchTheBinomialByHand() {
        // 2 * (C(5,0) + C(5,1)) / 2^5 = 12/32
        assertEquals(0.375, McNemar.exactTwoSidedP(1, 4), EXACT);
        // 2 * (1 + 10 + 45) / 2^10 = 112/1024
        assertEquals(112.0 / 1024, McNemar.exactTwoSidedP(2, 8), EXACT);
    }

    @Test
    void noOrBalancedDiscordanceGivesOne() {
        assertEquals(1, McNemar.exactTwoSidedP(0, 0));
        assertEquals(1, McNemar.exactTwoSidedP(0, 1), "2 * 1/2 is capped at 1");
        assertEquals(1, McNemar.exactTwoSidedP(7, 7));
    }

    @Test
    void manyPairsNeitherUnderflowToNaNNorExceedOne() {
        double lopsided = McNemar.exactTwoSidedP(0, 3000);
        double balanced = McNemar.exactTwoSidedP(1500, 1500);
        double slightlyApart = McNemar.exactTwoSidedP(1450, 1550);
        assertEquals(0, lopsided, EXACT);
        assertEquals(1, balanced, EXACT);
        assertTrue(slightlyApart > 0.05 && slightlyApart < 0.1, "about 1.8 standard deviations apart: " + slightlyApart);
    }
}
