package io.healbench.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Percentile bootstrap over instances. The resampling unit is the instance, not the attempt: an instance's repeats share a
 * program and a crash, so resampling attempts would treat them as independent and make intervals too narrow. Each resample
 * draws as many instances as there are, with replacement, and an instance drawn w times weighs w in every statistic. The
 * draws come from a {@link SplittableRandom} seeded by the caller, so the same data and seed give the same interval bit
 * for bit, and a report can be regenerated exactly.
 */
final class Bootstrap {

    /** Resamples per interval: enough that the 2.5th and 97.5th percentiles each have 50 replicates beyond them. */
    static final int RESAMPLES = 2000;

    private static final double LOWER_QUANTILE = 0.025;
    private static final double UPPER_QUANTILE = 0.975;

    private Bootstrap() {}

    /** A statistic of weighted instances; {@code weights[i]} is how often instance i was drawn (all 1 for the full data). */
    @FunctionalInterface
    interface WeightedStatistic {
        double of(int[] weights);
    }

    /**
     * One estimate per statistic, all from the same resamples (so related figures move together). Without instances every
     * estimate is {@code Estimate(0, 0, 0)}: nothing was measured, and tables show it as undefined.
     */
    static List<Estimate> estimates(int instances, long seed, List<WeightedStatistic> statistics) {
        List<Estimate> estimates = new ArrayList<>(statistics.size());
        if (instances == 0) {
            statistics.forEach(statistic -> estimates.add(new Estimate(0, 0, 0)));
            return estimates;
        }
        double[][] replicates = new double[statistics.size()][RESAMPLES];
        SplittableRandom random = new SplittableRandom(seed);
        int[] weights = new int[instances];
        for (int resample = 0; resample < RESAMPLES; resample++) {
            Arrays.fill(weights, 0);
            for (int draw = 0; draw < instances; draw++) {
                weights[random.nextInt(instances)]++;
            }
            for (int s = 0; s < statistics.size(); s++) {
                replicates[s][resample] = statistics.get(s).of(weights);
            }
        }
        int[] fullData = new int[instances];
        Arrays.fill(fullData, 1);
        for (int s = 0; s < statistics.size(); s++) {
            double[] sorted = replicates[s];
            Arrays.sort(sorted);
            estimates.add(new Estimate(statistics.get(s).of(fullData), quantile(sorted, LOWER_QUANTILE),
                    quantile(sorted, UPPER_QUANTILE)));
        }
        return estimates;
    }

    /**
     * The rate over the drawn instances' attempts, {@code sum(w * numerator) / sum(w * denominator)}: weighting by attempts
     * as the point estimate does, so the interval is about the same figure. Every denominator must be positive.
     */
    static WeightedStatistic ratio(double[] numerators, double[] denominators) {
        return weights -> {
            double numerator = 0;
            double denominator = 0;
            for (int i = 0; i < weights.length; i++) {
                numerator += weights[i] * numerators[i];
                denominator += weights[i] * denominators[i];
            }
            return numerator / denominator;
        };
    }

    /** The p-quantile of sorted values, interpolating linearly between the two nearest ranks. */
    static double quantile(double[] sorted, double p) {
        double position = p * (sorted.length - 1);
        int below = (int) Math.floor(position);
        int above = Math.min(below + 1, sorted.length - 1);
        double fraction = position - below;
        return sorted[below] + fraction * (sorted[above] - sorted[below]);
    }
}
