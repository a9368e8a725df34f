package io.healbench.analysis;

/**
 * A point estimate with its 95% confidence interval.
 *
 * @param value the estimate on the full data
 * @param low   the interval's lower bound: the 2.5th percentile of the bootstrap replicates ({@link Bootstrap})
 * @param high  the interval's upper bound: the 97.5th percentile
 */
public record Estimate(double value, double low, double high) {}
