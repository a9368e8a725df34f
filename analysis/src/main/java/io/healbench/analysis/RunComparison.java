package io.healbench.analysis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * Runs side by side, each after the first compared with the first (the baseline).
 *
 * @param runs        every run's statistics, in the order given
 * @param differences each run after the first against the first, in the order given
 */
public record RunComparison(List<RunStatistics> runs, List<PairedDifference> differences) {

    /** The comparison; every figure is drawn from {@code seed}, so the same runs and seed give the same comparison. */
    public static RunComparison of(List<RunRecord> runs, long seed) {
        List<RunStatistics> statistics = runs.stream().map(run -> RunStatistics.of(run, seed)).toList();
        List<PairedDifference> differences = new ArrayList<>();
        for (int i = 1; i < runs.size(); i++) {
            differences.add(paired(runs.get(0), runs.get(i), seed));
        }
        return new RunComparison(statistics, List.copyOf(differences));
    }

    /** An observation that can be paired across runs: the same instance's same repeat. */
    private record Observation(String instanceId, int repeat) {}

    private static PairedDifference paired(RunRecord baseline, RunRecord other, long seed) {
        SortedMap<String, List<AttemptRecord>> baselineInstances = RunStatistics.agentAttemptsByInstance(baseline);
        SortedMap<String, List<AttemptRecord>> otherInstances = RunStatistics.agentAttemptsByInstance(other);
        List<String> shared = baselineInstances.keySet().stream().filter(otherInstances::containsKey).toList();

        int count = shared.size();
        double[] baselineAttempts = new double[count];
        double[] baselinePassed = new double[count];
        double[] otherAttempts = new double[count];
        double[] otherPassed = new double[count];
        List<String> flippedToPass = new ArrayList<>();
        List<String> flippedToFail = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String instanceId = shared.get(i);
            InstanceTally before = InstanceTally.of(baselineInstances.get(instanceId));
            InstanceTally after = InstanceTally.of(otherInstances.get(instanceId));
            baselineAttempts[i] = before.attempts();
            baselinePassed[i] = before.passed();
            otherAttempts[i] = after.attempts();
            otherPassed[i] = after.passed();
            if (!before.majorityPassed() && after.majorityPassed()) {
                flippedToPass.add(instanceId);
            } else if (before.majorityPassed() && !after.majorityPassed()) {
                flippedToFail.add(instanceId);
            }
        }
        Bootstrap.WeightedStatistic otherRate = Bootstrap.ratio(otherPassed, otherAttempts);
        Bootstrap.WeightedStatistic baselineRate = Bootstrap.ratio(baselinePassed, baselineAttempts);
        Estimate difference = Bootstrap.estimates(count, seed,
                List.of(weights -> otherRate.of(weights) - baselineRate.of(weights))).get(0);

        Map<Observation, Boolean> otherPassedByObservation = passedByObservation(otherInstances);
        int onlyBaselinePassed = 0;
        int onlyOtherPassed = 0;
        for (Map.Entry<Observation, Boolean> observation : passedByObservation(baselineInstances).entrySet()) {
            Boolean otherPassedIt = otherPassedByObservation.get(observation.getKey());
            if (otherPassedIt == null) {
                continue;
            }
            if (observation.getValue() && !otherPassedIt) {
                onlyBaselinePassed++;
            } else if (!observation.getValue() && otherPassedIt) {
                onlyOtherPassed++;
            }
        }
        return new PairedDifference(baseline.runId(), other.runId(), count, difference, onlyBaselinePassed, onlyOtherPassed,
                McNemar.exactTwoSidedP(onlyBaselinePassed, onlyOtherPassed), List.copyOf(flippedToPass),
                List.copyOf(flippedToFail));
    }

    /** Whether each agent attempt passed, by instance and repeat; should a repeat occur twice, its first attempt counts. */
    private static Map<Observation, Boolean> passedByObservation(SortedMap<String, List<AttemptRecord>> byInstance) {
        Map<Observation, Boolean> passed = new LinkedHashMap<>();
        byInstance.forEach((instanceId, attempts) -> attempts.forEach(
                attempt -> passed.putIfAbsent(new Observation(instanceId, attempt.repeat()), attempt.passed())));
        return passed;
    }
}
