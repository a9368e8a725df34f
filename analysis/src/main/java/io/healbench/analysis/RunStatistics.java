package io.healbench.analysis;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * A run's figures.
 *
 * <p><b>Agent attempts</b> are those whose outcome is {@link OutcomeClass#chargedToAgent() charged to the agent}. Attempts
 * lost to the infrastructure or the grader say nothing about the agent, so they are left out of every rate, pass@k, the
 * flakiness and the breakdowns; they still count in {@link #byClass} and are listed by id so they can be looked into and
 * rerun.
 *
 * @param attempts              all of the run's attempts
 * @param agentAttempts         the attempts charged to the agent
 * @param byClass               every outcome class, 0 included, in enum order
 * @param infrastructureIds     the ids of the infrastructure attempts (sorted)
 * @param graderIds             the ids of the grader attempts (sorted)
 * @param proceedRate           PR, the fraction of agent attempts whose program proceeded past the crash
 * @param correctRate           CR, the fraction of agent attempts that passed
 * @param traceSimilarity       TS, the agent attempts' mean trace similarity
 * @param passAtK               pass@k for k = 1..the run's repeats (see {@link PassAtK#passAtK}), averaged over the
 *                              instances with at least k agent attempts; a k no instance reaches is absent
 * @param passHatK              pass^k, likewise (see {@link PassAtK#passHatK})
 * @param flakyInstances        the instances whose agent attempts disagree on passing (sorted)
 * @param flakiness             flaky instances over the instances with at least two agent attempts (the only ones that can
 *                              be flaky); 0 when there are none
 * @param byErrorType           plain rates per crash exception type
 * @param byCodebase            plain rates per code base
 * @param byTier                plain rates per tier
 * @param costUsd               the cost of all attempts, the excluded ones included: they were paid for too
 * @param inputTokens           the input tokens of all attempts
 * @param outputTokens          the output tokens of all attempts
 * @param guardDecisionsByStage every guard decision of every attempt, counted by stage, then verdict (both sorted)
 */
public record RunStatistics(String runId, String label, int attempts, int agentAttempts,
        Map<OutcomeClass, Integer> byClass,
        List<String> infrastructureIds, List<String> graderIds,
        Estimate proceedRate, Estimate correctRate, Estimate traceSimilarity,
        Map<Integer, Double> passAtK, Map<Integer, Double> passHatK,
        List<String> flakyInstances, double flakiness,
        List<GroupRates> byErrorType, List<GroupRates> byCodebase, List<GroupRates> byTier,
        double costUsd, long inputTokens, long outputTokens,
        Map<String, Map<String, Integer>> guardDecisionsByStage) {

    /** The breakdown key of attempts that do not name their error type, code base or tier. */
    static final String UNKNOWN = "unknown";

    /** Breakdown order: the largest groups first, as they weigh most in the overall rates; ties by key for stable output. */
    private static final Comparator<GroupRates> BREAKDOWN_ORDER =
            Comparator.comparingInt(GroupRates::attempts).reversed().thenComparing(GroupRates::key);

    /**
     * The run's figures. PR, CR and TS are the plain fractions (mean) over the agent attempts, with a 95% percentile
     * bootstrap interval over instances ({@link Bootstrap}) drawn from {@code seed}: the same run and seed give the same
     * figures bit for bit. Without agent attempts they are {@code Estimate(0, 0, 0)}.
     */
    public static RunStatistics of(RunRecord run, long seed) {
        List<AttemptRecord> agentAttempts = run.attempts().stream().filter(a -> a.outcome().chargedToAgent()).toList();
        SortedMap<String, InstanceTally> byInstance = new TreeMap<>();
        agentAttemptsByInstance(run).forEach((instanceId, attempts) -> byInstance.put(instanceId, InstanceTally.of(attempts)));
        List<InstanceTally> instances = List.copyOf(byInstance.values());
        List<Estimate> rates = rateEstimates(instances, seed);

        Map<OutcomeClass, Integer> byClass = new EnumMap<>(OutcomeClass.class);
        for (OutcomeClass outcome : OutcomeClass.values()) {
            byClass.put(outcome, 0);
        }
        double costUsd = 0;
        long inputTokens = 0;
        long outputTokens = 0;
        for (AttemptRecord attempt : run.attempts()) {
            byClass.merge(attempt.outcome(), 1, Integer::sum);
            costUsd += attempt.costUsd();
            inputTokens += attempt.inputTokens();
            outputTokens += attempt.outputTokens();
        }

        List<String> flakyInstances = new ArrayList<>();
        int repeatedInstances = 0;
        for (Map.Entry<String, InstanceTally> instance : byInstance.entrySet()) {
            if (instance.getValue().attempts() >= 2) {
                repeatedInstances++;
            }
            if (instance.getValue().flaky()) {
                flakyInstances.add(instance.getKey());
            }
        }
        double flakiness = repeatedInstances == 0 ? 0 : (double) flakyInstances.size() / repeatedInstances;

        return new RunStatistics(run.runId(), run.label(), run.attempts().size(), agentAttempts.size(),
                Collections.unmodifiableMap(byClass),
                idsOf(run, OutcomeClass.INFRASTRUCTURE), idsOf(run, OutcomeClass.GRADER),
                rates.get(0), rates.get(1), rates.get(2),
                Collections.unmodifiableMap(PassAtK.average(instances, run.repeats(), PassAtK::passAtK)),
                Collections.unmodifiableMap(PassAtK.average(instances, run.repeats(), PassAtK::passHatK)),
                List.copyOf(flakyInstances), flakiness,
                breakdown(agentAttempts, AttemptRecord::errorType), breakdown(agentAttempts, AttemptRecord::codebase),
                breakdown(agentAttempts, AttemptRecord::tier),
                costUsd, inputTokens, outputTokens, guardDecisionsByStage(run));
    }

    /** The run's agent attempts per instance id, instances sorted so that bootstrap draws map to the same instances. */
    static SortedMap<String, List<AttemptRecord>> agentAttemptsByInstance(RunRecord run) {
        SortedMap<String, List<AttemptRecord>> byInstance = new TreeMap<>();
        for (AttemptRecord attempt : run.attempts()) {
            if (attempt.outcome().chargedToAgent()) {
                byInstance.computeIfAbsent(attempt.instanceId(), id -> new ArrayList<>()).add(attempt);
            }
        }
        return byInstance;
    }

    /** PR, CR and TS, in that order, from the same bootstrap resamples. */
    private static List<Estimate> rateEstimates(List<InstanceTally> instances, long seed) {
        int count = instances.size();
        double[] attempts = new double[count];
        double[] proceeded = new double[count];
        double[] passed = new double[count];
        double[] similaritySums = new double[count];
        for (int i = 0; i < count; i++) {
            InstanceTally instance = instances.get(i);
            attempts[i] = instance.attempts();
            proceeded[i] = instance.proceeded();
            passed[i] = instance.passed();
            similaritySums[i] = instance.similaritySum();
        }
        return Bootstrap.estimates(count, seed, List.of(Bootstrap.ratio(proceeded, attempts),
                Bootstrap.ratio(passed, attempts), Bootstrap.ratio(similaritySums, attempts)));
    }

    private static List<String> idsOf(RunRecord run, OutcomeClass outcome) {
        return run.attempts().stream().filter(a -> a.outcome() == outcome).map(AttemptRecord::attemptId).sorted().toList();
    }

    private static List<GroupRates> breakdown(List<AttemptRecord> agentAttempts, Function<AttemptRecord, String> key) {
        Map<String, List<AttemptRecord>> groups = new TreeMap<>();
        for (AttemptRecord attempt : agentAttempts) {
            String value = key.apply(attempt);
            groups.computeIfAbsent(value == null || value.isBlank() ? UNKNOWN : value, k -> new ArrayList<>()).add(attempt);
        }
        List<GroupRates> rates = new ArrayList<>();
        groups.forEach((group, attempts) -> {
            InstanceTally tally = InstanceTally.of(attempts);
            double n = tally.attempts();
            rates.add(new GroupRates(group, tally.attempts(), tally.proceeded() / n, tally.passed() / n,
                    tally.similaritySum() / n));
        });
        rates.sort(BREAKDOWN_ORDER);
        return List.copyOf(rates);
    }

    /** Counted over all attempts: the guard acts on every attempt, whoever is charged with its outcome. */
    private static Map<String, Map<String, Integer>> guardDecisionsByStage(RunRecord run) {
        Map<String, Map<String, Integer>> byStage = new TreeMap<>();
        for (AttemptRecord attempt : run.attempts()) {
            if (attempt.guardDecisions() == null) {
                continue;
            }
            for (AttemptRecord.GuardDecisionRecord decision : attempt.guardDecisions()) {
                byStage.computeIfAbsent(decision.stage(), stage -> new TreeMap<>()).merge(decision.verdict(), 1, Integer::sum);
            }
        }
        byStage.replaceAll((stage, verdicts) -> Collections.unmodifiableMap(verdicts));
        return Collections.unmodifiableMap(byStage);
    }
}
