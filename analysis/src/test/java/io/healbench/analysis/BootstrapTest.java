package io.healbench.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class BootstrapTest {

    @Test
    void quantileInterpolatesBetweenNearestRanks() {
        double[] sorted = {0, 1, 2, 3, 4};
        assertEquals(2, Bootstrap.quantile(sorted, 0.5), 1e-12);
        assertEquals(1, Bootstrap.quantile(sorted, 0.25), 1e-12);
        assertEquals(0.4, Bootstrap.quantile(sorted, 0.1), 1e-12);
        assertEquals(4, Bootstrap.quantile(sorted, 1), 1e-12);
    }

    @Test
    void ratioWeighsEachInstanceByHowOftenItWasDrawn() {
        Bootstrap.WeightedStatistic ratio = Bootstrap.ratio(new double[] {1, 3}, new double[] {2, 4});
        assertEquals(4.0 / 6, ratio.of(new int[] {1, 1}), 1e-12);
        assertEquals(5.0 / 8, ratio.of(new int[] {2, 1}), 1e-12);
        assertEquals(0.75, ratio.of(new int[] {0, 2}), 1e-12);
    }

    @Test
    void withoutInstancesEveryEstimateIsZero() {
        List<Estimate> estimates = Bootstrap.estimates(0, 1, List.of(weights -> 1, weights -> 2));
        assertEquals(List.of(new Estimate(0, 0, 0), new Estimate(0, 0, 0)), estimates);
    }

    @Test
    void seedFixesTheIntervalAndAnotherSeedMovesIt() {
        double[] similarities = {0.11, 0.93, 0.42, 0.57, 0.05, 0.78, 0.31, 0.66};
        double[] ones = {1, 1, 1, 1, 1, 1, 1, 1};
        List<Bootstrap.WeightedStatistic> mean = List.of(Bootstrap.ratio(similarities, ones));

        Estimate first = Bootstrap.estimates(8, 42, mean).get(0);

        assertEquals(first, Bootstrap.estimates(8, 42, mean).get(0));
        assertNotEquals(first, Bootstrap.estimates(8, 43, mean).get(0));
        assertEquals(3.83 / 8, first.value(), 1e-12);
    }
}
