package io.healbench.analysis;

import static io.healbench.analysis.StatisticsFixtures.agentAttempt;
import static io.healbench.analysis.StatisticsFixtures.attempt;
import static io.healbench.analysis.StatisticsFixtures.run;
import static io.healbench.analysis.StatisticsFixtures.splitRun;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RunComparisonTest {

    private static final double EXACT = 1e-12;
    private static final long SEED = 7L;

    /** Six single-repeat instances, all failed in one run and all passed in the other. */
    private static RunRecord uniform(String runId, boolean passed) {
        List<AttemptRecord> attempts = new ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            attempts.add(agentAttempt("i" + i, 0, passed, passed ? 1 : 0));
        }
        return run(runId, 1, attempts);
    }

    @Test
    void sixPairsAllTurnedToPassGiveMcNemarOneIn32() {
        RunComparison comparison = RunComparison.of(List.of(uniform("base", false), uniform("new", true)), SEED);

        PairedDifference difference = comparison.differences().get(0);
        assertEquals("base", difference.baselineRunId());
        assertEquals("new", difference.otherRunId());
        assertEquals(6, difference.sharedInstances());
        assertEquals(0, difference.onlyBaselinePassed());
        assertEquals(6, difference.onlyOtherPassed());
        assertEquals(0.03125, difference.mcnemarP(), EXACT);
        assertEquals(new Estimate(1, 1, 1), difference.correctRateDifference(), "every resample sees 0% against 100%");
        assertEquals(List.of("i1", "i2", "i3", "i4", "i5", "i6"), difference.flippedToPass());
        assertEquals(List.of(), difference.flippedToFail());
    }

    @Test
    void eachRunAfterTheFirstIsComparedWithTheFirst() {
        List<RunRecord> runs = List.of(uniform("base", false), uniform("second", true), uniform("third", false));

        RunComparison comparison = RunComparison.of(runs, SEED);

        assertEquals(List.of("base", "second", "third"), comparison.runs().stream().map(RunStatistics::runId).toList());
        assertEquals(List.of("second", "third"), comparison.differences().stream().map(PairedDifference::otherRunId).toList());
        assertTrue(comparison.differences().stream().allMatch(d -> d.baselineRunId().equals("base")));
        assertEquals(1, comparison.differences().get(1).mcnemarP(), "identical runs have no discordant pairs");
        assertEquals(comparison.runs().get(1), RunStatistics.of(runs.get(1), SEED), "run statistics use the same seed");
    }

    @Test
    void onlyInstancesAndRepeatsChargedToTheAgentInBothRunsArePaired() {
        RunRecord baseline = run("base", 2, List.of(
                agentAttempt("shared", 0, false, 0),
                agentAttempt("shared", 1, false, 0),
                agentAttempt("only-base", 0, true, 1),
                agentAttempt("infra-in-other", 0, false, 0)));
        RunRecord other = run("other", 2, List.of(
                agentAttempt("shared", 0, true, 1),
                attempt("shared", 1, OutcomeClass.INFRASTRUCTURE, false, false, 0),
                agentAttempt("only-other", 0, true, 1),
                attempt("infra-in-other", 0, OutcomeClass.INFRASTRUCTURE, false, false, 0)));

        PairedDifference difference = RunComparison.of(List.of(baseline, other), SEED).differences().get(0);

        assertEquals(1, difference.sharedInstances(), "an instance with only excluded attempts was not measured");
        assertEquals(0, difference.onlyBaselinePassed());
        assertEquals(1, difference.onlyOtherPassed(), "repeat 1 of shared is infrastructure in the other run");
        assertEquals(1, difference.mcnemarP());
        // On the shared instance: other 1/1 against baseline 0/2; only-base's pass does not count.
        assertEquals(new Estimate(1, 1, 1), difference.correctRateDifference());
        assertEquals(List.of("shared"), difference.flippedToPass());
    }

    @Test
    void instancesFlipByTheirMajorityVerdict() {
        RunRecord baseline = run("base", 3, List.of(
                agentAttempt("half", 0, true, 1), agentAttempt("half", 1, false, 0),
                agentAttempt("lost", 0, true, 1), agentAttempt("lost", 1, true, 1), agentAttempt("lost", 2, true, 1),
                agentAttempt("steady", 0, true, 1), agentAttempt("steady", 1, true, 1),
                agentAttempt("lucky", 0, false, 0), agentAttempt("lucky", 1, false, 0), agentAttempt("lucky", 2, false, 0)));
        RunRecord other = run("other", 3, List.of(
                agentAttempt("half", 0, true, 1), agentAttempt("half", 1, true, 1),
                agentAttempt("lost", 0, true, 1), agentAttempt("lost", 1, false, 0), agentAttempt("lost", 2, false, 0),
                agentAttempt("steady", 0, true, 1), agentAttempt("steady", 1, true, 1),
                agentAttempt("lucky", 0, true, 1), agentAttempt("lucky", 1, false, 0), agentAttempt("lucky", 2, false, 0)));

        PairedDifference difference = RunComparison.of(List.of(baseline, other), SEED).differences().get(0);

        assertEquals(List.of("half"), difference.flippedToPass(), "one pass in two is not a majority; two in two is");
        assertEquals(List.of("lost"), difference.flippedToFail());
        assertEquals(2, difference.onlyBaselinePassed());
        assertEquals(2, difference.onlyOtherPassed());
        // baseline 6/10 passed, other 6/10 passed
        assertEquals(0, difference.correctRateDifference().value(), EXACT);
    }

    @Test
    void pairedIntervalContainsTheDifferenceAndIsReproducible() {
        RunRecord baseline = splitRun("base", 20);
        List<AttemptRecord> improved = new ArrayList<>();
        for (AttemptRecord attempt : splitRun("better", 20).attempts()) {
            boolean fixedNow = attempt.instanceId().compareTo("inst-010") < 0;
            improved.add(fixedNow ? agentAttempt(attempt.instanceId(), attempt.repeat(), true, 1) : attempt);
        }
        RunRecord better = run("better", 2, improved);

        RunComparison comparison = RunComparison.of(List.of(baseline, better), SEED);
        Estimate difference = comparison.differences().get(0).correctRateDifference();

        // instances 1, 3, 5, 7, 9 now pass both repeats: 10 more passes in 40
        assertEquals(0.25, difference.value(), EXACT);
        assertTrue(difference.low() <= 0.25 && 0.25 <= difference.high(), difference.toString());
        assertTrue(difference.low() > 0, "every paired resample improves or stays: " + difference);
        assertEquals(comparison, RunComparison.of(List.of(baseline, better), SEED));
        assertNotEquals(difference, RunComparison.of(List.of(baseline, uniform("other", true)), SEED).differences().get(0)
                .correctRateDifference());
    }

    @Test
    void noSharedInstancesGiveAZeroDifferenceAndNoFlips() {
        RunRecord baseline = run("base", 1, List.of(agentAttempt("a", 0, true, 1)));
        RunRecord other = run("other", 1, List.of(agentAttempt("b", 0, false, 0)));

        PairedDifference difference = RunComparison.of(List.of(baseline, other), SEED).differences().get(0);

        assertEquals(0, difference.sharedInstances());
        assertEquals(new Estimate(0, 0, 0), difference.correctRateDifference());
        assertEquals(1, difference.mcnemarP());
        assertTrue(difference.flippedToPass().isEmpty() && difference.flippedToFail().isEmpty());
    }
}
