package io.healbench.analysis;

/**
 * The plain rates of one group of agent attempts (one error type, code base or tier). They carry no interval: groups are
 * often a handful of attempts, and the breakdown is there to show where an agent is weak, not to back a claim.
 *
 * @param key             the group's error type, code base or tier ({@code unknown} when the attempts do not say)
 * @param attempts        the group's agent attempts
 * @param proceedRate     the fraction of them whose program proceeded past the crash
 * @param correctRate     the fraction of them that passed
 * @param traceSimilarity their mean trace similarity
 */
public record GroupRates(String key, int attempts, double proceedRate, double correctRate, double traceSimilarity) {}
