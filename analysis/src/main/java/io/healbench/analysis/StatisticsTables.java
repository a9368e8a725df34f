package io.healbench.analysis;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Plain-text tables of run statistics for a terminal: fixed-width columns, rates as percentages with one decimal, intervals
 * as {@code [lo, hi]}, and {@code -} wherever a figure is undefined (no agent attempts, no instance with k repeats).
 */
public final class StatisticsTables {

    private static final String UNDEFINED = "-";
    private static final String INDENT = "  ";
    /** Id lists wrap at this width so that a run with many excluded or flaky instances stays readable. */
    private static final int LINE_WIDTH = 100;

    private StatisticsTables() {}

    /** One run: the rates with their intervals, outcome classes, excluded ids, pass@k/pass^k, flakiness, breakdowns, cost. */
    public static void printRun(RunStatistics stats, PrintStream out) {
        out.println("Run " + stats.runId() + " (" + stats.label() + ")");
        int excluded = stats.attempts() - stats.agentAttempts();
        out.println(INDENT + stats.attempts() + " attempts, " + stats.agentAttempts() + " charged to the agent, " + excluded
                + " excluded from the rates (infrastructure " + stats.infrastructureIds().size() + ", grader "
                + stats.graderIds().size() + ")");
        out.println();

        TextTable rates = new TextTable("figure", "value", "95% CI");
        rates.row("proceed rate (PR)", rate(stats, stats.proceedRate().value()), interval(stats, stats.proceedRate()));
        rates.row("correct rate (CR)", rate(stats, stats.correctRate().value()), interval(stats, stats.correctRate()));
        rates.row("trace similarity (TS)", rate(stats, stats.traceSimilarity().value()),
                interval(stats, stats.traceSimilarity()));
        rates.print(out);
        out.println();

        out.println("Outcome classes");
        TextTable classes = new TextTable("class", "attempts");
        stats.byClass().forEach((outcome, count) -> classes.row(outcome.label(), String.valueOf(count)));
        classes.print(out);
        out.println();

        out.println("Excluded attempts (not the agent's doing)");
        printIds(out, "infrastructure", stats.infrastructureIds());
        printIds(out, "grader", stats.graderIds());
        out.println();

        out.println("pass@k (at least one of k repeats passes) and pass^k (all k pass)");
        TextTable passK = new TextTable("k", "pass@k", "pass^k");
        for (int k : ksOf(List.of(stats))) {
            passK.row(String.valueOf(k), share(stats.passAtK().get(k)), share(stats.passHatK().get(k)));
        }
        passK.printOrNone(out);
        out.println();

        out.println("Flaky instances (repeats disagree on passing): flakiness " + percent(stats.flakiness())
                + " of instances with >= 2 agent attempts");
        printIds(out, "flaky", stats.flakyInstances());
        out.println();

        printBreakdown(out, "By error type", "error type", stats.byErrorType());
        printBreakdown(out, "By code base", "code base", stats.byCodebase());
        printBreakdown(out, "By tier", "tier", stats.byTier());

        out.println("Cost: " + usd(stats.costUsd()) + ", " + stats.inputTokens() + " input tokens, " + stats.outputTokens()
                + " output tokens");
        out.println();

        out.println("Guard decisions");
        TextTable guard = new TextTable("stage", "verdict", "decisions");
        stats.guardDecisionsByStage().forEach((stage, verdicts) ->
                verdicts.forEach((verdict, count) -> guard.row(stage, verdict, String.valueOf(count))));
        guard.printOrNone(out);
    }

    /**
     * Runs side by side (one column each, the baseline first), then each run against the baseline: the paired CR difference,
     * the discordant pairs with McNemar's p, and the instances that flipped.
     */
    public static void printComparison(RunComparison comparison, PrintStream out) {
        List<RunStatistics> runs = comparison.runs();
        if (runs.isEmpty()) {
            out.println("No runs to compare.");
            return;
        }
        out.println("Comparison of " + runs.size() + " runs; the baseline is " + runs.get(0).runId());
        out.println();

        List<String> header = new ArrayList<>(List.of("figure"));
        runs.forEach(run -> header.add(run.runId()));
        TextTable sideBySide = new TextTable(header.toArray(String[]::new));
        sideBySide.row(cells("label", runs, RunStatistics::label));
        sideBySide.row(cells("attempts", runs, run -> String.valueOf(run.attempts())));
        sideBySide.row(cells("agent attempts", runs, run -> String.valueOf(run.agentAttempts())));
        sideBySide.row(cells("infrastructure", runs, run -> String.valueOf(run.infrastructureIds().size())));
        sideBySide.row(cells("grader", runs, run -> String.valueOf(run.graderIds().size())));
        sideBySide.row(cells("PR", runs, run -> rateWithInterval(run, run.proceedRate())));
        sideBySide.row(cells("CR", runs, run -> rateWithInterval(run, run.correctRate())));
        sideBySide.row(cells("TS", runs, run -> rateWithInterval(run, run.traceSimilarity())));
        for (int k : ksOf(runs)) {
            sideBySide.row(cells("pass@" + k, runs, run -> share(run.passAtK().get(k))));
        }
        for (int k : ksOf(runs)) {
            sideBySide.row(cells("pass^" + k, runs, run -> share(run.passHatK().get(k))));
        }
        sideBySide.row(cells("flaky instances", runs, run -> String.valueOf(run.flakyInstances().size())));
        sideBySide.row(cells("flakiness", runs, run -> percent(run.flakiness())));
        sideBySide.row(cells("cost", runs, run -> usd(run.costUsd())));
        sideBySide.row(cells("input tokens", runs, run -> String.valueOf(run.inputTokens())));
        sideBySide.row(cells("output tokens", runs, run -> String.valueOf(run.outputTokens())));
        sideBySide.print(out);

        if (comparison.differences().isEmpty()) {
            return;
        }
        out.println();
        out.println("Against the baseline " + runs.get(0).runId()
                + " (CR difference over shared instances; McNemar over pairs of the same instance and repeat)");
        TextTable paired = new TextTable("run", "shared instances", "CR difference", "95% CI", "only baseline passed",
                "only run passed", "McNemar p");
        for (PairedDifference difference : comparison.differences()) {
            boolean measured = difference.sharedInstances() > 0;
            Estimate cr = difference.correctRateDifference();
            paired.row(difference.otherRunId(), String.valueOf(difference.sharedInstances()),
                    measured ? points(cr.value()) : UNDEFINED,
                    measured ? "[" + points(cr.low()) + ", " + points(cr.high()) + "]" : UNDEFINED,
                    String.valueOf(difference.onlyBaselinePassed()), String.valueOf(difference.onlyOtherPassed()),
                    pValue(difference.mcnemarP()));
        }
        paired.print(out);
        for (PairedDifference difference : comparison.differences()) {
            out.println();
            out.println("Flipped instances of " + difference.otherRunId() + " (by the majority of agent attempts)");
            printIds(out, "to pass", difference.flippedToPass());
            printIds(out, "to fail", difference.flippedToFail());
        }
    }

    private static void printBreakdown(PrintStream out, String title, String keyName, List<GroupRates> groups) {
        out.println(title);
        TextTable table = new TextTable(keyName, "attempts", "PR", "CR", "TS");
        for (GroupRates group : groups) {
            table.row(group.key(), String.valueOf(group.attempts()), percent(group.proceedRate()),
                    percent(group.correctRate()), percent(group.traceSimilarity()));
        }
        table.printOrNone(out);
        out.println();
    }

    /** {@code name (count): id, id, ...}, wrapped under the name. */
    private static void printIds(PrintStream out, String name, List<String> ids) {
        String prefix = INDENT + name + " (" + ids.size() + "): ";
        if (ids.isEmpty()) {
            out.println(prefix + UNDEFINED);
            return;
        }
        String continuation = " ".repeat(prefix.length());
        StringBuilder line = new StringBuilder(prefix);
        for (int i = 0; i < ids.size(); i++) {
            String item = ids.get(i) + (i < ids.size() - 1 ? "," : "");
            if (line.length() > prefix.length() && line.length() + 1 + item.length() > LINE_WIDTH) {
                out.println(line);
                line = new StringBuilder(continuation);
            } else if (line.length() > prefix.length()) {
                line.append(' ');
            }
            line.append(item);
        }
        out.println(line);
    }

    private static String[] cells(String name, List<RunStatistics> runs, Function<RunStatistics, String> cell) {
        List<String> cells = new ArrayList<>(List.of(name));
        runs.forEach(run -> cells.add(cell.apply(run)));
        return cells.toArray(String[]::new);
    }

    /** Every k any of the runs has pass@k or pass^k for. */
    private static SortedSet<Integer> ksOf(List<RunStatistics> runs) {
        SortedSet<Integer> ks = new TreeSet<>();
        runs.forEach(run -> {
            ks.addAll(run.passAtK().keySet());
            ks.addAll(run.passHatK().keySet());
        });
        return ks;
    }

    /** A rate of the agent's attempts; undefined when none were charged to the agent. */
    private static String rate(RunStatistics run, double value) {
        return run.agentAttempts() == 0 ? UNDEFINED : percent(value);
    }

    private static String interval(RunStatistics run, Estimate estimate) {
        return run.agentAttempts() == 0 ? UNDEFINED : interval(estimate);
    }

    private static String rateWithInterval(RunStatistics run, Estimate estimate) {
        return run.agentAttempts() == 0 ? UNDEFINED : percent(estimate.value()) + " " + interval(estimate);
    }

    private static String interval(Estimate estimate) {
        return String.format(Locale.ROOT, "[%.1f, %.1f]", 100 * estimate.low(), 100 * estimate.high());
    }

    private static String share(Double value) {
        return value == null ? UNDEFINED : percent(value);
    }

    private static String percent(double value) {
        return String.format(Locale.ROOT, "%.1f%%", 100 * value);
    }

    /** A difference of rates, in signed percentage points. */
    private static String points(double difference) {
        return String.format(Locale.ROOT, "%+.1f pp", 100 * difference);
    }

    /** Four decimals, and a bound below that, since a p-value printed as 0.0000 reads as impossible. */
    private static String pValue(double p) {
        return p < 1e-4 ? "<0.0001" : String.format(Locale.ROOT, "%.4f", p);
    }

    private static String usd(double amount) {
        return String.format(Locale.ROOT, "$%.4f", amount);
    }

    /** Columns as wide as their widest cell; the first (a name) left-aligned, the others (figures) right-aligned. */
    private static final class TextTable {
        private final String[] header;
        private final List<String[]> rows = new ArrayList<>();

        TextTable(String... header) {
            this.header = header;
        }

        void row(String... cells) {
            rows.add(cells);
        }

        void print(PrintStream out) {
            int[] widths = new int[header.length];
            for (int column = 0; column < header.length; column++) {
                widths[column] = header[column].length();
                for (String[] row : rows) {
                    widths[column] = Math.max(widths[column], row[column].length());
                }
            }
            printRow(out, header, widths);
            String[] rule = new String[header.length];
            for (int column = 0; column < header.length; column++) {
                rule[column] = "-".repeat(widths[column]);
            }
            printRow(out, rule, widths);
            rows.forEach(row -> printRow(out, row, widths));
        }

        /** Prints the table, or a line saying it is empty (a header over nothing reads as a fault). */
        void printOrNone(PrintStream out) {
            if (rows.isEmpty()) {
                out.println(INDENT + "(none)");
            } else {
                print(out);
            }
        }

        private static void printRow(PrintStream out, String[] cells, int[] widths) {
            StringBuilder line = new StringBuilder(INDENT);
            for (int column = 0; column < cells.length; column++) {
                if (column > 0) {
                    line.append("   ");
                }
                String format = column == 0 ? "%-" + widths[column] + "s" : "%" + widths[column] + "s";
                line.append(String.format(Locale.ROOT, format, cells[column]));
            }
            out.println(line.toString().stripTrailing());
        }
    }
}
