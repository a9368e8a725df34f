package io.healbench.analysis;

import static io.healbench.analysis.StatisticsFixtures.agentAttempt;
import static io.healbench.analysis.StatisticsFixtures.attempt;
import static io.healbench.analysis.StatisticsFixtures.grouped;
import static io.healbench.analysis.StatisticsFixtures.run;
import static io.healbench.analysis.StatisticsFixtures.splitRun;
import static io.healbench.analysis.StatisticsFixtures.withGuardDecisions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.analysis.AttemptRecord.GuardDecisionRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunStatisticsTest {

    private static final double EXACT = 1e-12;
    private static final long SEED = 20250101L;

    /**
     * i1 passes one of two repeats, i2 both; i3's only attempt is lost to the infrastructure, and a third attempt of i1
     * passed but is the grader's failure. Rates must see exactly the four agent attempts.
     */
    private static RunRecord mixedRun() {
        return run("run-mixed", 2, List.of(
                agentAttempt("i1", 0, true, 1.0),
                agentAttempt("i1", 1, false, 0.5),
                agentAttempt("i2", 0, true, 1.0),
                agentAttempt("i2", 1, true, 1.0),
                attempt("i3", 0, OutcomeClass.INFRASTRUCTURE, false, false, 0),
                attempt("i1", 2, OutcomeClass.GRADER, true, true, 1.0)));
    }

    @Test
    void ratesCountOnlyAgentAttempts() {
        RunStatistics stats = RunStatistics.of(mixedRun(), SEED);

        assertEquals(6, stats.attempts());
        assertEquals(4, stats.agentAttempts());
        assertEquals(0.75, stats.proceedRate().value(), EXACT);
        assertEquals(0.75, stats.correctRate().value(), EXACT);
        assertEquals(3.5 / 4, stats.traceSimilarity().value(), EXACT);
    }

    @Test
    void excludedAttemptsAreCountedByClassAndListedById() {
        RunStatistics stats = RunStatistics.of(mixedRun(), SEED);

        assertEquals(List.of(OutcomeClass.values()), List.copyOf(stats.byClass().keySet()), "every class, in enum order");
        assertEquals(3, stats.byClass().get(OutcomeClass.HEALED));
        assertEquals(1, stats.byClass().get(OutcomeClass.NOT_HEALED));
        assertEquals(0, stats.byClass().get(OutcomeClass.BUDGET));
        assertEquals(1, stats.byClass().get(OutcomeClass.INFRASTRUCTURE));
        assertEquals(1, stats.byClass().get(OutcomeClass.GRADER));
        assertEquals(List.of("i3-r0"), stats.infrastructureIds());
        assertEquals(List.of("i1-r2"), stats.graderIds());
    }

    @Test
    void excludedAttemptsStayOutOfPassAtKFlakinessAndBreakdowns() {
        RunStatistics stats = RunStatistics.of(mixedRun(), SEED);

        // i1: n=2, c=1 -> pass@1 1/2, pass@2 1, pass^2 0; i2: n=2, c=2 -> all 1. The grader's pass on i1 would make n=3, c=2.
        assertEquals(Map.of(1, 0.75, 2, 1.0), stats.passAtK());
        assertEquals(0.75, stats.passHatK().get(1), EXACT);
        assertEquals(0.5, stats.passHatK().get(2), EXACT);
        assertEquals(List.of("i1"), stats.flakyInstances());
        assertEquals(0.5, stats.flakiness(), EXACT, "i3 has no agent attempt, so two instances can be flaky");
        assertEquals(List.of(new GroupRates("TypeError", 4, 0.75, 0.75, 3.5 / 4)), stats.byErrorType());
    }

    @Test
    void costAndTokensAddUpAllAttemptsAndGuardDecisionsAreCountedByStageAndVerdict() {
        List<AttemptRecord> attempts = new ArrayList<>(mixedRun().attempts());
        attempts.set(0, withGuardDecisions(attempts.get(0), List.of(
                new GuardDecisionRecord(0, "pre", "allow", ""), new GuardDecisionRecord(1, "pre", "deny", "unsafe"))));
        attempts.set(4, withGuardDecisions(attempts.get(4), List.of(new GuardDecisionRecord(0, "pre", "allow", ""),
                new GuardDecisionRecord(0, "post", "allow", ""))));

        RunStatistics stats = RunStatistics.of(run("run-guarded", 2, attempts), SEED);

        assertEquals(6 * StatisticsFixtures.COST_PER_ATTEMPT, stats.costUsd(), EXACT);
        assertEquals(6 * StatisticsFixtures.INPUT_TOKENS_PER_ATTEMPT, stats.inputTokens());
        assertEquals(6 * StatisticsFixtures.OUTPUT_TOKENS_PER_ATTEMPT, stats.outputTokens());
        assertEquals(Map.of("post", Map.of("allow", 1), "pre", Map.of("allow", 2, "deny", 1)), stats.guardDecisionsByStage());
        assertEquals(List.of("post", "pre"), List.copyOf(stats.guardDecisionsByStage().keySet()));
    }

    @Test
    void breakdownsGroupEmptyKeysAsUnknownAndPutLargerGroupsFirst() {
        RunRecord run = run("run-groups", 1, List.of(
                grouped(agentAttempt("a", 0, true, 1.0), "zlib", "injected", ""),
                grouped(agentAttempt("b", 0, false, 0.0), "zlib", "injected", "KeyError"),
                grouped(agentAttempt("c", 0, true, 0.5), "zlib", "real_bug", "KeyError"),
                grouped(agentAttempt("d", 0, false, 0.5), "attrs", "real_bug", "ValueError"),
                grouped(attempt("e", 0, OutcomeClass.INFRASTRUCTURE, false, false, 0), "attrs", "real_bug", "")));

        RunStatistics stats = RunStatistics.of(run, SEED);

        assertEquals(List.of(new GroupRates("KeyError", 2, 0.5, 0.5, 0.25), new GroupRates("ValueError", 1, 0, 0, 0.5),
                new GroupRates("unknown", 1, 1, 1, 1)), stats.byErrorType());
        assertEquals(List.of(new GroupRates("zlib", 3, 2.0 / 3, 2.0 / 3, 0.5), new GroupRates("attrs", 1, 0, 0, 0.5)),
                stats.byCodebase());
        assertEquals(List.of("injected", "real_bug"), stats.byTier().stream().map(GroupRates::key).toList(),
                "equal sizes are ordered by key");
    }

    @Test
    void passAtKLeavesOutKThatNoInstanceReaches() {
        RunRecord run = run("run-stranded", 3, List.of(agentAttempt("a", 0, true, 1), agentAttempt("a", 1, false, 0),
                agentAttempt("b", 0, false, 0)));

        RunStatistics stats = RunStatistics.of(run, SEED);

        assertEquals(List.of(1, 2), List.copyOf(stats.passAtK().keySet()));
        assertEquals((0.5 + 0) / 2, stats.passAtK().get(1), EXACT);
        assertEquals(1, stats.passAtK().get(2), EXACT, "only a has two attempts");
    }

    @Test
    void aRunWithoutAgentAttemptsHasZeroEstimatesAndNoPassAtK() {
        RunRecord run = run("run-broken", 2, List.of(attempt("a", 0, OutcomeClass.INFRASTRUCTURE, false, false, 0),
                attempt("a", 1, OutcomeClass.GRADER, true, true, 1)));

        RunStatistics stats = RunStatistics.of(run, SEED);

        assertEquals(0, stats.agentAttempts());
        assertEquals(new Estimate(0, 0, 0), stats.correctRate());
        assertEquals(new Estimate(0, 0, 0), stats.traceSimilarity());
        assertTrue(stats.passAtK().isEmpty());
        assertEquals(0, stats.flakiness());
        assertTrue(stats.byTier().isEmpty());
    }

    @Test
    void sameRunAndSeedGiveTheSameFiguresAndOtherDataOtherFigures() {
        RunStatistics first = RunStatistics.of(splitRun("run", 12), SEED);
        RunStatistics again = RunStatistics.of(splitRun("run", 12), SEED);
        RunStatistics otherData = RunStatistics.of(splitRun("run", 13), SEED);

        assertEquals(first, again);
        assertNotEquals(first.correctRate(), otherData.correctRate());
        assertNotEquals(first.traceSimilarity(), otherData.traceSimilarity());
    }

    @Test
    void intervalsContainTheValueAndNarrowWithMoreInstances() {
        RunStatistics few = RunStatistics.of(splitRun("few", 6), SEED);
        RunStatistics many = RunStatistics.of(splitRun("many", 60), SEED);

        for (RunStatistics stats : List.of(few, many)) {
            for (Estimate estimate : List.of(stats.proceedRate(), stats.correctRate(), stats.traceSimilarity())) {
                assertTrue(estimate.low() <= estimate.value() && estimate.value() <= estimate.high(), estimate.toString());
                assertTrue(estimate.low() < estimate.high(), "several unlike instances give a real interval: " + estimate);
            }
        }
        assertEquals(0.5, few.correctRate().value(), EXACT);
        assertEquals(0.5, many.correctRate().value(), EXACT);
        assertTrue(width(many.correctRate()) < width(few.correctRate()), few.correctRate() + " vs " + many.correctRate());
        assertTrue(width(many.traceSimilarity()) < width(few.traceSimilarity()));
    }

    @Test
    void oneInstanceCollapsesTheIntervalToTheValue() {
        RunRecord run = run("run-one", 3, List.of(agentAttempt("a", 0, true, 0.9), agentAttempt("a", 1, false, 0.2),
                agentAttempt("a", 2, false, 0.4)));

        RunStatistics stats = RunStatistics.of(run, SEED);

        assertEquals(new Estimate(1.0 / 3, 1.0 / 3, 1.0 / 3), stats.correctRate());
        assertEquals(stats.traceSimilarity().value(), stats.traceSimilarity().low());
        assertEquals(stats.traceSimilarity().value(), stats.traceSimilarity().high());
    }

    private static double width(Estimate estimate) {
        return estimate.high() - estimate.low();
    }
}
