package io.healbench.analysis;

/**
 * McNemar's exact test for paired pass/fail observations. Only discordant pairs carry information about a difference between
 * two runs; under the null hypothesis each discordant pair is equally likely to favour either run, so the count favouring
 * one of them is Binomial(b + c, 1/2). The exact binomial form is used because discordant counts in a benchmark are often
 * small, where the chi-square approximation is poor.
 */
final class McNemar {

    private McNemar() {}

    /**
     * The two-sided p-value {@code min(1, 2 * P(X <= min(b, c)))} for X ~ Binomial(b + c, 1/2); 1 when there are no
     * discordant pairs (nothing speaks for a difference).
     *
     * @param onlyBaselinePassed b, the pairs where only the baseline passed
     * @param onlyOtherPassed    c, the pairs where only the other run passed
     */
    static double exactTwoSidedP(int onlyBaselinePassed, int onlyOtherPassed) {
        if (onlyBaselinePassed < 0 || onlyOtherPassed < 0) {
            throw new IllegalArgumentException("negative discordant count");
        }
        int discordant = onlyBaselinePassed + onlyOtherPassed;
        if (discordant == 0) {
            return 1;
        }
        return Math.min(1, 2 * binomialHalfCdf(Math.min(onlyBaselinePassed, onlyOtherPassed), discordant));
    }

    /**
     * P(X <= m) for X ~ Binomial(n, 1/2). The terms C(n,i)/2^n are built in log space, since 2^-n underflows a double beyond
     * about a thousand pairs while the leading terms may still matter.
     */
    private static double binomialHalfCdf(int m, int n) {
        double logTerm = -n * Math.log(2);
        double sum = 0;
        for (int i = 0; i <= m; i++) {
            sum += Math.exp(logTerm);
            logTerm += Math.log((double) (n - i) / (i + 1));
        }
        return sum;
    }
}
