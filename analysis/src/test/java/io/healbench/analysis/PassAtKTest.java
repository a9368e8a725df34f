package io.healbench.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PassAtKTest {

    private static final double EXACT = 1e-12;

    @Test
    void passAtKMatchesHandComputedBinomialRatios() {
        // 1 - C(2,2)/C(3,2) = 1 - 1/3
        assertEquals(2.0 / 3, PassAtK.passAtK(3, 1, 2), EXACT);
        // 1 - C(7,4)/C(10,4) = 1 - 35/210
        assertEquals(5.0 / 6, PassAtK.passAtK(10, 3, 4), EXACT);
        assertEquals(0.4, PassAtK.passAtK(5, 2, 1), EXACT, "pass@1 is c/n");
        assertEquals(0, PassAtK.passAtK(5, 0, 3), EXACT);
        assertEquals(1, PassAtK.passAtK(5, 4, 2), EXACT, "fewer than k failures: every k-subset holds a pass");
    }

    @Test
    void passHatKMatchesHandComputedBinomialRatios() {
        // C(2,2)/C(3,2)
        assertEquals(1.0 / 3, PassAtK.passHatK(3, 2, 2), EXACT);
        // C(3,2)/C(5,2) = 3/10
        assertEquals(0.3, PassAtK.passHatK(5, 3, 2), EXACT);
        assertEquals(0, PassAtK.passHatK(5, 1, 2), EXACT, "fewer than k passes: no k-subset passes throughout");
        assertEquals(1, PassAtK.passHatK(4, 4, 4), EXACT);
    }

    @Test
    void largeCountsStayFiniteWhereBinomialCoefficientsWouldOverflow() {
        double passAt = PassAtK.passAtK(2000, 1000, 900);
        double passHat = PassAtK.passHatK(2000, 1999, 1000);
        assertTrue(passAt > 0.999 && passAt <= 1, "pass@900 " + passAt);
        assertEquals(0.5, passHat, 1e-10, "C(1999,1000)/C(2000,1000) = (2000-1000)/2000");
    }

    @Test
    void kOutsideOneToNIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> PassAtK.passAtK(3, 1, 4));
        assertThrows(IllegalArgumentException.class, () -> PassAtK.passHatK(3, 1, 0));
    }

    @Test
    void averageUsesOnlyInstancesWithAtLeastKAttemptsAndLeavesOutUnreachedK() {
        List<InstanceTally> instances = List.of(new InstanceTally(3, 1, 1, 0), new InstanceTally(1, 1, 1, 0));

        Map<Integer, Double> passAt = PassAtK.average(instances, 4, PassAtK::passAtK);

        assertEquals(List.of(1, 2, 3), List.copyOf(passAt.keySet()));
        assertEquals((1.0 / 3 + 1) / 2, passAt.get(1), EXACT);
        assertEquals(2.0 / 3, passAt.get(2), EXACT, "only the three-attempt instance reaches k = 2");
        assertEquals(1, passAt.get(3), EXACT);
    }
}
