package io.healbench.analysis;

import static io.healbench.analysis.StatisticsFixtures.agentAttempt;
import static io.healbench.analysis.StatisticsFixtures.attempt;
import static io.healbench.analysis.StatisticsFixtures.grouped;
import static io.healbench.analysis.StatisticsFixtures.run;
import static io.healbench.analysis.StatisticsFixtures.withGuardDecisions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.analysis.AttemptRecord.GuardDecisionRecord;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class StatisticsTablesTest {

    private static final long SEED = 11L;

    private static RunRecord sampleRun() {
        return run("run-7", 2, List.of(
                withGuardDecisions(agentAttempt("i1", 0, true, 1.0),
                        List.of(new GuardDecisionRecord(0, "pre_apply", "deny", "writes outside the sandbox"))),
                agentAttempt("i1", 1, false, 0.5),
                grouped(agentAttempt("i2", 0, true, 1.0), "codebase-b", "injected", ""),
                grouped(agentAttempt("i2", 1, true, 1.0), "codebase-b", "injected", ""),
                attempt("i3", 0, OutcomeClass.INFRASTRUCTURE, false, false, 0),
                attempt("i1", 2, OutcomeClass.GRADER, true, true, 1.0)));
    }

    private static String printed(Consumer<PrintStream> print) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        print.accept(out);
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void runTableShowsRatesWithIntervalsClassesExcludedIdsPassAtKFlakinessAndBreakdowns() {
        RunStatistics stats = RunStatistics.of(sampleRun(), SEED);
        String text = printed(out -> StatisticsTables.printRun(stats, out));

        assertTrue(text.contains("run-7") && text.contains("label-run-7"), text);
        assertTrue(text.contains("6 attempts, 4 charged to the agent, 2 excluded"), text);
        assertTrue(Pattern.compile("correct rate \\(CR\\)\\s+75\\.0%\\s+\\[\\d+\\.\\d, \\d+\\.\\d]").matcher(text).find(), text);
        assertTrue(Pattern.compile("trace similarity \\(TS\\)\\s+87\\.5%").matcher(text).find(), text);
        assertTrue(Pattern.compile("not healed\\s+1").matcher(text).find(), text);
        assertTrue(Pattern.compile("budget\\s+0").matcher(text).find(), "zero classes are listed too: " + text);
        assertTrue(text.contains("infrastructure (1): i3-r0"), text);
        assertTrue(text.contains("grader (1): i1-r2"), text);
        // k = 2: pass@2 = (1 + 1)/2, pass^2 = (0 + 1)/2
        assertTrue(Pattern.compile("\\n\\s+2\\s+100\\.0%\\s+50\\.0%\\n").matcher(text).find(), text);
        assertTrue(text.contains("flakiness 50.0%") && text.contains("flaky (1): i1"), text);
        assertTrue(Pattern.compile("unknown\\s+2\\s+100\\.0%\\s+100\\.0%\\s+100\\.0%").matcher(text).find(), text);
        assertTrue(Pattern.compile("codebase-a\\s+2\\s+50\\.0%").matcher(text).find(), text);
        assertTrue(text.contains("$0.0600"), text);
        assertTrue(Pattern.compile("pre_apply\\s+deny\\s+1").matcher(text).find(), text);
    }

    @Test
    void runTablePrintsUndefinedRatesAsDash() {
        RunRecord broken = run("run-broken", 1, List.of(attempt("a", 0, OutcomeClass.INFRASTRUCTURE, false, false, 0)));
        String text = printed(out -> StatisticsTables.printRun(RunStatistics.of(broken, SEED), out));

        assertTrue(Pattern.compile("correct rate \\(CR\\)\\s+-\\s+-").matcher(text).find(), text);
        assertTrue(text.contains("grader (0): -"), text);
    }

    @Test
    void comparisonTableShowsRunsSideBySidePairedRowsFlipsAndCost() {
        List<AttemptRecord> failing = new ArrayList<>();
        List<AttemptRecord> passing = new ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            failing.add(agentAttempt("i" + i, 0, false, 0));
            passing.add(agentAttempt("i" + i, 0, true, 1));
        }
        RunComparison comparison = RunComparison.of(List.of(run("base", 1, failing), run("new", 1, passing)), SEED);
        String text = printed(out -> StatisticsTables.printComparison(comparison, out));

        String header = text.lines().filter(line -> line.contains("figure")).findFirst().orElseThrow();
        assertTrue(header.indexOf("base") < header.indexOf("new"), header);
        assertTrue(Pattern.compile("CR\\s+0\\.0% \\[0\\.0, 0\\.0]\\s+100\\.0% \\[100\\.0, 100\\.0]").matcher(text).find(), text);
        assertTrue(Pattern.compile("pass@1\\s+0\\.0%\\s+100\\.0%").matcher(text).find(), text);
        assertTrue(Pattern.compile("cost\\s+\\$0\\.0600\\s+\\$0\\.0600").matcher(text).find(), text);
        assertTrue(Pattern.compile("new\\s+6\\s+\\+100\\.0 pp\\s+\\[\\+100\\.0 pp, \\+100\\.0 pp]\\s+0\\s+6\\s+0\\.031")
                .matcher(text).find(), text);
        assertTrue(text.contains("to pass (6): i1, i2, i3, i4, i5, i6"), text);
        assertTrue(text.contains("to fail (0): -"), text);
    }

    @Test
    void longIdListsWrapInsteadOfRunningOn() {
        List<AttemptRecord> attempts = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            attempts.add(attempt("instance-with-a-long-name-" + i, 0, OutcomeClass.INFRASTRUCTURE, false, false, 0));
        }
        String text = printed(out -> StatisticsTables.printRun(RunStatistics.of(run("run-wide", 1, attempts), SEED), out));

        assertTrue(text.lines().allMatch(line -> line.length() <= 100), text);
        assertEquals(40, Pattern.compile("instance-with-a-long-name-\\d+-r0").matcher(text).results().count());
    }
}
