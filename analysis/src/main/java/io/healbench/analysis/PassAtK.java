package io.healbench.analysis;

import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

/**
 * pass@k and pass^k from repeated attempts. With n attempts of which c passed, both are exact expectations over the k-subsets
 * of the n attempts, which is less noisy than scoring only the first k attempts.
 */
final class PassAtK {

    private PassAtK() {}

    /** An estimator for one instance with n attempts, c of them passed, and subset size k (1 <= k <= n). */
    @FunctionalInterface
    interface PerInstance {
        double of(int n, int c, int k);
    }

    /**
     * pass@k, the chance that at least one of k attempts drawn without replacement passes: {@code 1 - C(n-c,k)/C(n,k)}, the
     * unbiased estimator of Chen et al. (2021). The ratio is taken as the product of (n-c-i)/(n-i) over i < k, which never
     * forms a large binomial coefficient and so neither overflows nor loses precision.
     */
    static double passAtK(int n, int c, int k) {
        return 1 - allOfSubsetFrom(n - c, n, k);
    }

    /**
     * pass^k, the chance that all of k attempts drawn without replacement pass: {@code C(c,k)/C(n,k)}. It measures
     * reliability where pass@k measures reach.
     */
    static double passHatK(int n, int c, int k) {
        return allOfSubsetFrom(c, n, k);
    }

    /** {@code C(m,k)/C(n,k)}, the chance that a k-subset of n items lies within a given m of them. */
    private static double allOfSubsetFrom(int m, int n, int k) {
        if (k < 1 || k > n || m < 0 || m > n) {
            throw new IllegalArgumentException("need 1 <= k <= n and 0 <= m <= n, got m=" + m + " n=" + n + " k=" + k);
        }
        if (m < k) {
            return 0;
        }
        double product = 1;
        for (int i = 0; i < k; i++) {
            product *= (double) (m - i) / (n - i);
        }
        return product;
    }

    /**
     * The estimator for k = 1..maxK averaged over the instances with at least k attempts (fewer cannot form a k-subset). A k
     * no instance reaches is left out of the map: the figure is undefined, not zero.
     */
    static Map<Integer, Double> average(Collection<InstanceTally> instances, int maxK, PerInstance estimator) {
        Map<Integer, Double> byK = new TreeMap<>();
        for (int k = 1; k <= maxK; k++) {
            double sum = 0;
            int counted = 0;
            for (InstanceTally instance : instances) {
                if (instance.attempts() >= k) {
                    sum += estimator.of(instance.attempts(), instance.passed(), k);
                    counted++;
                }
            }
            if (counted > 0) {
                byK.put(k, sum / counted);
            }
        }
        return byK;
    }
}
