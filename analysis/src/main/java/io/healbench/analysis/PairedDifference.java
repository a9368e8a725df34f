package io.healbench.analysis;

import java.util.List;

/**
 * One run against the baseline, over what both measured: pairing removes the instance-to-instance spread that dwarfs most
 * differences between agents.
 *
 * @param sharedInstances       the instances with at least one agent attempt in both runs
 * @param correctRateDifference the other run's CR minus the baseline's, both over the shared instances, with a 95% paired
 *                              bootstrap interval (the same resampled instances for both runs); {@code Estimate(0, 0, 0)}
 *                              without shared instances
 * @param onlyBaselinePassed    b: the (instance, repeat) pairs charged to the agent in both runs where only the baseline
 *                              passed
 * @param onlyOtherPassed       c: those where only the other run passed
 * @param mcnemarP              McNemar's exact two-sided p on b and c ({@link McNemar}); 1 without discordant pairs
 * @param flippedToPass         shared instances (sorted) that fail by majority in the baseline and pass by majority in the
 *                              other run; majority means passing in more than half the instance's agent attempts, so one
 *                              lucky repeat does not flip an instance
 * @param flippedToFail         shared instances (sorted) that flip the other way
 */
public record PairedDifference(String baselineRunId, String otherRunId, int sharedInstances, Estimate correctRateDifference,
        int onlyBaselinePassed, int onlyOtherPassed, double mcnemarP, List<String> flippedToPass, List<String> flippedToFail) {}
