package io.healbench.analysis;

import static io.healbench.analysis.HtmlReportFormat.count;
import static io.healbench.analysis.HtmlReportFormat.escape;
import static io.healbench.analysis.HtmlReportFormat.estimate;
import static io.healbench.analysis.HtmlReportFormat.percent;
import static io.healbench.analysis.HtmlReportFormat.usd;
import static io.healbench.analysis.HtmlReportPage.chips;
import static io.healbench.analysis.HtmlReportPage.figure;
import static io.healbench.analysis.HtmlReportPage.idList;
import static io.healbench.analysis.HtmlReportPage.table;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

import io.healbench.analysis.HtmlReportCharts.CostPoint;

/**
 * The HTML reports: one self-contained file each (inline style and SVG charts, nothing loaded from elsewhere). Every
 * text that comes from a record (ids, labels, details, reasons) is escaped where it enters the page.
 */
public final class HtmlReport {

    private static final String RATES_NOTE = "Proceed rate (PR), correct rate (CR) and trace similarity (TS) count only "
            + "the attempts charged to the agent: infrastructure and grader failures are left out and listed on their own. "
            + "Brackets hold 95% confidence intervals.";

    /** Up to this many flipped instances of a pair show at once; more fold behind their counts. */
    private static final int FLIPS_SHOWN_OPEN = 16;

    private HtmlReport() {}

    /** One self-contained HTML file (no network, no external files): the run's report. */
    public static String ofRun(RunRecord run, RunStatistics stats) {
        List<AttemptRecord> attempts = sortedAttempts(run.attempts());
        Map<String, String> anchors = attemptAnchors(attempts);
        HtmlReportPage page = new HtmlReportPage("HealBench run " + run.label() + " (" + run.runId() + ")");
        page.header("HealBench · run report", run.label().isBlank() ? run.runId() : run.label(), List.of(
                new String[] {"Run", "<code>" + escape(run.runId()) + "</code>"},
                new String[] {"Agent", escape(run.agent())},
                new String[] {"Guard mode", escape(run.guardMode())},
                new String[] {"Repeats", count(run.repeats())},
                new String[] {"State", escape(run.state())},
                new String[] {"Created", escape(run.createTime())}));
        page.section("summary", "Summary", RATES_NOTE, summaryCards(stats));
        page.section("outcomes", "Outcomes", null, "<div class=\"panels\">"
                + panel("Outcome classes", outcomeClassTable(stats))
                + panel("pass@k and pass^k", passAtKTable(stats))
                + panel("Flaky instances", flakyPanel(stats, attempts))
                + panel("Excluded attempts", excludedPanel(stats, anchors))
                + "</div>");
        page.section("charts", "Charts", "Rates are shares of the agent's attempts in each group; n is the group's size.",
                "<div class=\"charts\">" + runCharts(stats, attempts) + "</div>");
        page.section("attempts", "Attempts", "Every attempt of the run. The file links are relative to the run's directory.",
                "<div class=\"attempts\">" + attemptTable(attempts, anchors) + "</div>");
        return page.html();
    }

    /** The compare view of several runs. */
    public static String ofComparison(List<RunRecord> runs, RunComparison comparison) {
        List<RunStatistics> stats = comparison.runs();
        Map<String, String> names = runNames(stats);
        HtmlReportPage page = new HtmlReportPage("HealBench comparison of " + stats.size() + " runs");
        List<String[]> facts = new ArrayList<>();
        for (RunStatistics run : stats) {
            facts.add(new String[] {names.get(run.runId()), "<code>" + escape(run.runId()) + "</code>"});
        }
        page.header("HealBench · comparison", stats.size() == 1 ? "1 run" : stats.size() + " runs side by side", facts);
        page.section("summary", "Summary", RATES_NOTE, "<div class=\"scroll\">" + comparisonSummaryTable(runs, stats, names)
                + "</div>");
        page.section("differences", "Paired differences",
                "Each run against the baseline (the first run) over the instances both ran: the difference of their "
                        + "correct rates with its 95% paired interval; the attempts, paired by instance and repeat, that only "
                        + "one of the two passed, and McNemar's exact p-value on them; the instances whose majority outcome "
                        + "flipped.",
                "<div class=\"scroll\">" + differencesTable(comparison.differences(), names) + "</div>");
        page.section("charts", "Charts", "The correct rate of each run per group; cost against correct rate, one point "
                + "per run with its 95% interval.", "<div class=\"charts\">" + comparisonCharts(stats, names) + "</div>");
        page.section("outcomes", "Outcomes", null, "<div class=\"panels\">"
                + panel("Outcome classes", comparisonClassTable(stats, names))
                + panel("pass@k and pass^k", comparisonPassAtKTable(stats, names))
                + "</div><h3 class=\"spaced\">Flaky and excluded</h3><div class=\"scroll\">"
                + flakyAndExcludedTable(stats, names) + "</div>");
        page.section("instances", "Instances", "Attempts passed out of the attempts charged to the agent, per instance "
                + "and run.", "<div class=\"attempts\">" + instanceMatrix(runs, stats, names) + "</div>");
        return page.html();
    }

    // --- the run view --------------------------------------------------------------------------------------------

    private static String summaryCards(RunStatistics stats) {
        int excluded = stats.attempts() - stats.agentAttempts();
        boolean measured = stats.agentAttempts() > 0;
        return "<div class=\"cards\">"
                + estimateCard("Correct rate (CR)", stats.correctRate(), measured, true)
                + estimateCard("Proceed rate (PR)", stats.proceedRate(), measured, false)
                + estimateCard("Trace similarity (TS)", stats.traceSimilarity(), measured, false)
                + card("Agent attempts", count(stats.agentAttempts()),
                        "of " + count(stats.attempts()) + " attempts; " + count(excluded) + " excluded")
                + card("Cost", usd(stats.costUsd()), count(stats.inputTokens()) + " input · "
                        + count(stats.outputTokens()) + " output tokens")
                + "</div>";
    }

    /** {@code measured}: the run has agent attempts (without any, the statistics report zeros that mean nothing). */
    private static String estimateCard(String name, Estimate value, boolean measured, boolean primary) {
        boolean known = measured && Double.isFinite(value.value());
        return "<div class=\"card" + (primary ? " primary" : "") + "\"><div class=\"name\">" + escape(name)
                + "</div><div class=\"value\">" + (known ? percent(value.value()) : HtmlReportFormat.NONE)
                + "</div><div class=\"ci\">" + (known ? "95% CI " + HtmlReportFormat.interval(value) : "no agent attempts")
                + "</div></div>";
    }

    private static String card(String name, String valueHtml, String note) {
        return "<div class=\"card\"><div class=\"name\">" + escape(name) + "</div><div class=\"value\">" + valueHtml
                + "</div><div class=\"note\">" + escape(note) + "</div></div>";
    }

    private static String panel(String heading, String content) {
        return "<div><h3>" + escape(heading) + "</h3>" + content + "</div>";
    }

    private static String outcomeClassTable(RunStatistics stats) {
        List<List<String>> rows = new ArrayList<>();
        for (OutcomeClass outcome : OutcomeClass.values()) {
            int n = stats.byClass().getOrDefault(outcome, 0);
            rows.add(List.of(outcomeBadge(outcome, true), count(n),
                    stats.attempts() == 0 ? HtmlReportFormat.NONE : percent((double) n / stats.attempts())));
        }
        return table(List.of("Class", "#Attempts", "#Share"), rows);
    }

    private static String flakyPanel(RunStatistics stats, List<AttemptRecord> attempts) {
        Map<String, int[]> passedOfCharged = passedOfChargedByInstance(attempts);
        List<String> flaky = new ArrayList<>();
        for (String instance : stats.flakyInstances()) {
            int[] tally = passedOfCharged.getOrDefault(instance, new int[2]);
            flaky.add(escape(instance) + " <span class=\"muted\">" + tally[0] + "/" + tally[1] + "</span>");
        }
        return "<p>Flakiness " + percent(stats.flakiness()) + " of the instances with two or more agent attempts: their "
                + "attempts disagree on passing (passed/attempts).</p>"
                + idList(flaky, "instances", "No instance passed on some repeats and failed on others.");
    }

    private static String excludedPanel(RunStatistics stats, Map<String, String> anchors) {
        Function<String, String> linked = id -> anchors.containsKey(id)
                ? "<a href=\"#" + anchors.get(id) + "\">" + escape(id) + "</a>" : escape(id);
        return "<p>Infrastructure (" + stats.infrastructureIds().size() + ")</p>"
                + idList(stats.infrastructureIds().stream().map(linked).toList(), "attempts", "None.")
                + "<p>Grader (" + stats.graderIds().size() + ")</p>"
                + idList(stats.graderIds().stream().map(linked).toList(), "attempts", "None.");
    }

    private static String runCharts(RunStatistics stats, List<AttemptRecord> attempts) {
        StringBuilder out = new StringBuilder();
        out.append(groupFigure(HtmlReportCharts.BY_ERROR_TYPE, "Rates by error type",
                "PR, CR and TS per exception type of the crash.", "error type", stats.byErrorType()));
        out.append(groupFigure(HtmlReportCharts.BY_CODEBASE, "Rates by code base",
                "PR, CR and TS per code base of the instances.", "code base", stats.byCodebase()));
        out.append(groupFigure(HtmlReportCharts.BY_TIER, "Rates by tier",
                "PR, CR and TS per tier of the instances.", "tier", stats.byTier()));

        Map<String, double[]> costByCodebase = new TreeMap<>();
        for (AttemptRecord attempt : attempts) {
            double[] sumAndCount = costByCodebase.computeIfAbsent(attempt.codebase(), codebase -> new double[2]);
            sumAndCount[0] += attempt.costUsd();
            sumAndCount[1]++;
        }
        List<CostPoint> points = new ArrayList<>();
        for (GroupRates codebase : stats.byCodebase()) {
            double[] sumAndCount = costByCodebase.get(codebase.key());
            double meanCost = sumAndCount == null ? Double.NaN : sumAndCount[0] / sumAndCount[1];
            points.add(new CostPoint(codebase.key(), meanCost, codebase.correctRate(), Double.NaN, Double.NaN));
        }
        out.append(costFigure("Cost against correct rate",
                "One point per code base: the mean cost of its attempts and its correct rate.", points, "code base",
                "code bases"));

        out.append(guardFigure("Guard decisions by stage", "HealGuard's decisions in each stage, stacked by verdict.",
                new TreeMap<>(stats.guardDecisionsByStage()), "Stage"));
        return out.toString();
    }

    private static String groupFigure(String key, String heading, String caption, String groupName,
            List<GroupRates> groups) {
        List<List<String>> rows = new ArrayList<>();
        for (GroupRates group : groups) {
            rows.add(List.of(escape(group.key()), count(group.attempts()), percent(group.proceedRate()),
                    percent(group.correctRate()), percent(group.traceSimilarity())));
        }
        String data = table(List.of(capitalized(groupName), "#n", "#PR", "#CR", "#TS"), rows);
        return figure(key, heading, caption, HtmlReportCharts.groupRates(key, groups), data);
    }

    private static String costFigure(String heading, String caption, List<CostPoint> points, String pointName,
            String pointKind) {
        List<List<String>> rows = new ArrayList<>();
        for (CostPoint point : points) {
            String interval = Double.isFinite(point.correctLow())
                    ? " <span class=\"ci\">" + HtmlReportFormat.interval(
                            new Estimate(point.correctRate(), point.correctLow(), point.correctHigh())) + "</span>"
                    : "";
            rows.add(List.of(escape(point.name()), usd(point.costPerAttemptUsd()), percent(point.correctRate()) + interval));
        }
        String data = table(List.of(capitalized(pointName), "#Mean cost per attempt", "#CR"), rows);
        return figure(HtmlReportCharts.COST_VS_CORRECT, heading, caption,
                HtmlReportCharts.costAgainstCorrectRate(HtmlReportCharts.COST_VS_CORRECT, points, pointKind), data);
    }

    private static String guardFigure(String heading, String caption, Map<String, Map<String, Integer>> byRow,
            String rowName) {
        TreeSet<String> verdicts = new TreeSet<>();
        byRow.values().forEach(counts -> verdicts.addAll(counts.keySet()));
        List<String> headers = new ArrayList<>(List.of(rowName));
        verdicts.forEach(verdict -> headers.add("#" + verdict));
        List<List<String>> rows = new ArrayList<>();
        for (Map.Entry<String, Map<String, Integer>> row : byRow.entrySet()) {
            List<String> cells = new ArrayList<>(List.of(escape(row.getKey())));
            verdicts.forEach(verdict -> cells.add(count(row.getValue().getOrDefault(verdict, 0))));
            rows.add(cells);
        }
        return figure(HtmlReportCharts.GUARD_DECISIONS, heading, caption,
                HtmlReportCharts.guardDecisions(HtmlReportCharts.GUARD_DECISIONS, byRow), table(headers, rows));
    }

    private static String attemptTable(List<AttemptRecord> attempts, Map<String, String> anchors) {
        List<List<String>> rows = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        for (AttemptRecord attempt : attempts) {
            ids.add(anchors.get(attempt.attemptId()));
            rows.add(List.of(
                    "<span class=\"id\">" + escape(attempt.instanceId()) + "</span><div class=\"meta\">repeat "
                            + attempt.repeat() + " · <span class=\"id\">" + escape(attempt.attemptId()) + "</span></div>",
                    escape(attempt.errorType()) + "<div class=\"meta\">" + escape(attempt.codebase()) + " · "
                            + escape(attempt.tier()) + "</div>",
                    outcomeBadge(attempt.outcome(), false) + "<div class=\"meta\">"
                            + (attempt.proceeded() ? "proceeded" : "did not proceed") + "</div>",
                    testsBadge(attempt),
                    HtmlReportFormat.similarity(attempt.traceSimilarity()),
                    usd(attempt.costUsd()),
                    count(attempt.inputTokens()) + " / " + count(attempt.outputTokens()),
                    guardVerdicts(attempt.guardDecisions()),
                    detail(attempt.detail()),
                    fileLinks(attempt)));
        }
        return table(List.of("Instance", "Crash", "Outcome", "Tests", "#TS", "#Cost", "#Tokens in / out", "Guard", "Detail",
                "Files"), rows, ids);
    }

    /** Whether the tests passed; nothing for the attempts the harness lost, whose tests say nothing about the agent. */
    private static String testsBadge(AttemptRecord attempt) {
        if (!attempt.outcome().chargedToAgent()) {
            return "<span class=\"muted\">" + HtmlReportFormat.NONE + "</span>";
        }
        return attempt.passed() ? "<span class=\"badge pass\">passed</span>" : "<span class=\"badge fail\">failed</span>";
    }

    private static String guardVerdicts(List<AttemptRecord.GuardDecisionRecord> decisions) {
        if (decisions == null || decisions.isEmpty()) {
            return "<span class=\"muted\">none</span>";
        }
        StringBuilder out = new StringBuilder();
        for (AttemptRecord.GuardDecisionRecord decision : decisions) {
            out.append("<span class=\"verdict\" title=\"heal point ").append(decision.healPoint()).append(": ")
                    .append(escape(decision.reason())).append("\">").append(escape(decision.stage())).append(": ")
                    .append(escape(decision.verdict())).append("</span>");
        }
        return out.toString();
    }

    /** Long details (tracebacks) fold away behind their first line. */
    private static String detail(String detail) {
        if (detail == null || detail.isEmpty()) {
            return "";
        }
        int firstLineEnd = detail.indexOf('\n');
        if (detail.length() <= 160 && firstLineEnd < 0) {
            return "<div class=\"detail\">" + escape(detail) + "</div>";
        }
        String firstLine = detail.substring(0, firstLineEnd < 0 ? 120 : Math.min(firstLineEnd, 120));
        return "<details class=\"detail\"><summary>" + escape(firstLine) + "…</summary>" + escape(detail) + "</details>";
    }

    private static String fileLinks(AttemptRecord attempt) {
        String directory = attempt.directory();
        return "<span class=\"files\">"
                + "<a href=\"" + HtmlReportFormat.relativeHref(directory, "report.json") + "\">report</a>"
                + "<a href=\"" + HtmlReportFormat.relativeHref(directory, "trajectory.json") + "\">trajectory</a>"
                + "<a href=\"" + HtmlReportFormat.relativeHref(directory, "events.jsonl") + "\">events</a>"
                + "</span>";
    }

    // --- the compare view ----------------------------------------------------------------------------------------

    private static String comparisonSummaryTable(List<RunRecord> runs, List<RunStatistics> stats, Map<String, String> names) {
        Map<String, RunRecord> recordById = new HashMap<>();
        runs.forEach(run -> recordById.put(run.runId(), run));
        List<List<String>> rows = new ArrayList<>();
        for (RunStatistics run : stats) {
            RunRecord record = recordById.get(run.runId());
            rows.add(List.of(
                    "<strong>" + escape(names.get(run.runId())) + "</strong><br><code>" + escape(run.runId()) + "</code>",
                    record == null ? "" : escape(record.agent()),
                    record == null ? "" : escape(record.guardMode()),
                    count(run.agentAttempts()) + " <span class=\"muted\">/ " + count(run.attempts()) + "</span>",
                    measuredEstimate(run, run.proceedRate()),
                    measuredEstimate(run, run.correctRate()),
                    measuredEstimate(run, run.traceSimilarity()),
                    usd(run.costUsd()),
                    run.attempts() == 0 ? HtmlReportFormat.NONE : usd(run.costUsd() / run.attempts()),
                    count(run.inputTokens()) + " / " + count(run.outputTokens())));
        }
        return table(List.of("Run", "Agent", "Guard", "#Agent / all attempts", "#PR", "#CR", "#TS", "#Cost",
                "#Cost per attempt", "#Tokens in / out"), rows);
    }

    private static String measuredEstimate(RunStatistics run, Estimate value) {
        return run.agentAttempts() == 0 ? HtmlReportFormat.NONE : estimate(value);
    }

    private static String differencesTable(List<PairedDifference> differences, Map<String, String> names) {
        if (differences.isEmpty()) {
            return "<p class=\"muted\">Only one run: nothing to pair.</p>";
        }
        List<List<String>> rows = new ArrayList<>();
        for (PairedDifference difference : differences) {
            double value = difference.correctRateDifference().value();
            String sign = value > 0 ? "positive" : value < 0 ? "negative" : "";
            // Without shared instances the difference is a placeholder zero, not a measurement.
            String correctRateDifference = difference.sharedInstances() == 0 ? HtmlReportFormat.NONE
                    : "<span class=\"" + sign + "\">" + HtmlReportFormat.percentagePoints(value) + "</span> <span class=\"ci\">"
                            + HtmlReportFormat.percentagePointsInterval(difference.correctRateDifference()) + "</span>";
            rows.add(List.of(
                    runName(names, difference.baselineRunId()),
                    runName(names, difference.otherRunId()),
                    count(difference.sharedInstances()),
                    correctRateDifference,
                    count(difference.onlyBaselinePassed()),
                    count(difference.onlyOtherPassed()),
                    HtmlReportFormat.pValue(difference.mcnemarP()),
                    flips(difference)));
        }
        return table(List.of("Baseline", "Other", "#Shared instances", "#CR difference", "#Only baseline passed (b)",
                "#Only other passed (c)", "#McNemar p", "Flipped instances"), rows);
    }

    /** The instances that flipped, both ways, folded behind their counts when there are many. */
    private static String flips(PairedDifference difference) {
        int toPass = difference.flippedToPass().size();
        int toFail = difference.flippedToFail().size();
        if (toPass + toFail == 0) {
            return "<span class=\"muted\">none</span>";
        }
        return "<details class=\"flips\"" + (toPass + toFail <= FLIPS_SHOWN_OPEN ? " open" : "") + "><summary>" + toPass
                + " to pass, " + toFail + " to fail</summary>"
                + "<p class=\"meta\">to pass</p>" + chips(escaped(difference.flippedToPass()))
                + "<p class=\"meta\">to fail</p>" + chips(escaped(difference.flippedToFail())) + "</details>";
    }

    private static String comparisonClassTable(List<RunStatistics> stats, Map<String, String> names) {
        List<String> headers = new ArrayList<>(List.of("Class"));
        stats.forEach(run -> headers.add("#" + names.get(run.runId())));
        List<List<String>> rows = new ArrayList<>();
        for (OutcomeClass outcome : OutcomeClass.values()) {
            List<String> cells = new ArrayList<>(List.of(outcomeBadge(outcome, true)));
            stats.forEach(run -> cells.add(count(run.byClass().getOrDefault(outcome, 0))));
            rows.add(cells);
        }
        return table(headers, rows);
    }

    private static String flakyAndExcludedTable(List<RunStatistics> stats, Map<String, String> names) {
        List<List<String>> rows = new ArrayList<>();
        for (RunStatistics run : stats) {
            rows.add(List.of(runName(names, run.runId()), percent(run.flakiness()),
                    idList(escaped(run.flakyInstances()), "instances", "none"),
                    idList(escaped(run.infrastructureIds()), "attempts", "none"),
                    idList(escaped(run.graderIds()), "attempts", "none")));
        }
        return table(List.of("Run", "#Flakiness", "Flaky instances", "Infrastructure", "Grader"), rows);
    }

    private static String comparisonCharts(List<RunStatistics> stats, Map<String, String> names) {
        StringBuilder out = new StringBuilder();
        out.append(compareGroupFigure(HtmlReportCharts.BY_ERROR_TYPE, "Correct rate by error type", "error type",
                stats, names, RunStatistics::byErrorType));
        out.append(compareGroupFigure(HtmlReportCharts.BY_CODEBASE, "Correct rate by code base", "code base",
                stats, names, RunStatistics::byCodebase));
        out.append(compareGroupFigure(HtmlReportCharts.BY_TIER, "Correct rate by tier", "tier",
                stats, names, RunStatistics::byTier));
        List<CostPoint> points = new ArrayList<>();
        for (RunStatistics run : stats) {
            // A run without agent attempts has no correct rate: its point stays undefined, and the chart leaves it out.
            Estimate correct = run.agentAttempts() == 0 ? new Estimate(Double.NaN, Double.NaN, Double.NaN) : run.correctRate();
            points.add(new CostPoint(names.get(run.runId()), run.attempts() == 0 ? Double.NaN : run.costUsd() / run.attempts(),
                    correct.value(), correct.low(), correct.high()));
        }
        out.append(costFigure("Cost against correct rate",
                "One point per run: its mean cost per attempt and its correct rate with the 95% interval.", points, "run",
                "runs"));
        Map<String, Map<String, Integer>> byRunAndStage = new LinkedHashMap<>();
        for (RunStatistics run : stats) {
            new TreeMap<>(run.guardDecisionsByStage()).forEach((stage, verdicts) ->
                    byRunAndStage.put(names.get(run.runId()) + " · " + stage, verdicts));
        }
        out.append(guardFigure("Guard decisions by stage", "HealGuard's decisions per run and stage, stacked by verdict.",
                byRunAndStage, "Run · stage"));
        return out.toString();
    }

    private static String compareGroupFigure(String key, String heading, String groupName, List<RunStatistics> stats,
            Map<String, String> names, Function<RunStatistics, List<GroupRates>> groupsOf) {
        Map<String, List<GroupRates>> groupsByRun = new LinkedHashMap<>();
        stats.forEach(run -> groupsByRun.put(names.get(run.runId()), groupsOf.apply(run)));
        TreeSet<String> groups = new TreeSet<>();
        groupsByRun.values().forEach(list -> list.forEach(group -> groups.add(group.key())));
        List<String> headers = new ArrayList<>(List.of(capitalized(groupName)));
        groupsByRun.keySet().forEach(run -> headers.add("#" + run));
        List<List<String>> rows = new ArrayList<>();
        for (String group : groups) {
            List<String> cells = new ArrayList<>(List.of(escape(group)));
            for (List<GroupRates> runGroups : groupsByRun.values()) {
                cells.add(runGroups.stream().filter(rates -> rates.key().equals(group)).findFirst()
                        .map(rates -> percent(rates.correctRate()) + " <span class=\"muted\">(n=" + rates.attempts() + ")</span>")
                        .orElse(HtmlReportFormat.NONE));
            }
            rows.add(cells);
        }
        return figure(key, heading, "The correct rate of each run per " + groupName + ".",
                HtmlReportCharts.correctRateByRun(key, groupsByRun), table(headers, rows));
    }

    private static String instanceMatrix(List<RunRecord> runs, List<RunStatistics> stats, Map<String, String> names) {
        Map<String, Map<String, int[]>> tallyByRun = new LinkedHashMap<>();
        TreeSet<String> instances = new TreeSet<>();
        for (RunRecord run : runs) {
            Map<String, int[]> tally = passedOfChargedByInstance(run.attempts());
            tallyByRun.put(run.runId(), tally);
            instances.addAll(tally.keySet());
        }
        List<String> headers = new ArrayList<>(List.of("Instance"));
        stats.forEach(run -> headers.add("#" + names.get(run.runId())));
        List<List<String>> rows = new ArrayList<>();
        for (String instance : instances) {
            List<String> cells = new ArrayList<>(List.of("<span class=\"id\">" + escape(instance) + "</span>"));
            for (RunStatistics run : stats) {
                int[] tally = tallyByRun.getOrDefault(run.runId(), Map.of()).get(instance);
                cells.add(tally == null || tally[1] == 0 ? "<span class=\"muted\">" + HtmlReportFormat.NONE + "</span>"
                        : "<span class=\"badge " + (tally[0] == tally[1] ? "pass" : tally[0] == 0 ? "fail" : "partial")
                                + "\">" + tally[0] + "/" + tally[1] + "</span>");
            }
            rows.add(cells);
        }
        return table(headers, rows);
    }

    // --- shared pieces -------------------------------------------------------------------------------------------

    private static final String PASS_AT_K_NOTE = "<p class=\"muted\">pass@k: the chance that at least one of k repeats "
            + "of an instance passes; pass^k: that all k pass.</p>";

    /** One run's pass@k and pass^k: a row per k. */
    private static String passAtKTable(RunStatistics stats) {
        TreeSet<Integer> ks = passAtKs(List.of(stats));
        if (ks.isEmpty()) {
            return "<p class=\"muted\">No pass@k: no instance has an attempt charged to the agent.</p>";
        }
        List<List<String>> rows = new ArrayList<>();
        for (int k : ks) {
            rows.add(List.of(String.valueOf(k), percentOrNone(stats.passAtK().get(k)),
                    percentOrNone(stats.passHatK().get(k))));
        }
        return table(List.of("#k", "#pass@k", "#pass^k"), rows) + PASS_AT_K_NOTE;
    }

    /** Several runs' pass@k and pass^k: a row per run, a column per k and kind. */
    private static String comparisonPassAtKTable(List<RunStatistics> stats, Map<String, String> names) {
        TreeSet<Integer> ks = passAtKs(stats);
        if (ks.isEmpty()) {
            return "<p class=\"muted\">No pass@k: no instance has an attempt charged to the agent.</p>";
        }
        List<String> headers = new ArrayList<>(List.of("Run"));
        ks.forEach(k -> headers.add("#pass@" + k));
        ks.forEach(k -> headers.add("#pass^" + k));
        List<List<String>> rows = new ArrayList<>();
        for (RunStatistics run : stats) {
            List<String> cells = new ArrayList<>(List.of(escape(names.get(run.runId()))));
            ks.forEach(k -> cells.add(percentOrNone(run.passAtK().get(k))));
            ks.forEach(k -> cells.add(percentOrNone(run.passHatK().get(k))));
            rows.add(cells);
        }
        return table(headers, rows) + PASS_AT_K_NOTE;
    }

    private static TreeSet<Integer> passAtKs(List<RunStatistics> stats) {
        TreeSet<Integer> ks = new TreeSet<>();
        stats.forEach(run -> {
            ks.addAll(run.passAtK().keySet());
            ks.addAll(run.passHatK().keySet());
        });
        return ks;
    }

    private static String percentOrNone(Double share) {
        return share == null ? HtmlReportFormat.NONE : percent(share);
    }

    /** The class as a coloured badge; the classes left out of the agent's rates say so where classes are counted. */
    private static String outcomeBadge(OutcomeClass outcome, boolean noteExclusion) {
        String label = escape(outcome.label());
        if (outcome.chargedToAgent()) {
            return "<span class=\"badge " + label.replace(' ', '-') + "\">" + label + "</span>";
        }
        return "<span class=\"badge excluded\">" + label + (noteExclusion ? " · excluded" : "") + "</span>";
    }

    /** The attempts in reading order: by instance, then repeat. */
    private static List<AttemptRecord> sortedAttempts(List<AttemptRecord> attempts) {
        return attempts.stream().sorted(Comparator.comparing(AttemptRecord::instanceId)
                .thenComparingInt(AttemptRecord::repeat).thenComparing(AttemptRecord::attemptId)).toList();
    }

    /** Row anchors by position, not by id: an id from a record is no safe fragment. */
    private static Map<String, String> attemptAnchors(List<AttemptRecord> attempts) {
        Map<String, String> anchors = new HashMap<>();
        for (int i = 0; i < attempts.size(); i++) {
            anchors.putIfAbsent(attempts.get(i).attemptId(), "attempt-" + (i + 1));
        }
        return anchors;
    }

    /** Per instance, {passed, charged}: the attempts charged to the agent and how many of them passed. */
    private static Map<String, int[]> passedOfChargedByInstance(List<AttemptRecord> attempts) {
        Map<String, int[]> tally = new TreeMap<>();
        for (AttemptRecord attempt : attempts) {
            if (attempt.outcome().chargedToAgent()) {
                int[] counts = tally.computeIfAbsent(attempt.instanceId(), instance -> new int[2]);
                counts[0] += attempt.passed() ? 1 : 0;
                counts[1]++;
            }
        }
        return tally;
    }

    /** The names of the runs in the compare view: the label, with the run id where two runs share a label. */
    private static Map<String, String> runNames(List<RunStatistics> stats) {
        Map<String, Integer> labelCounts = new HashMap<>();
        stats.forEach(run -> labelCounts.merge(run.label(), 1, Integer::sum));
        Map<String, String> names = new LinkedHashMap<>();
        for (RunStatistics run : stats) {
            boolean ambiguous = run.label() == null || run.label().isBlank() || labelCounts.get(run.label()) > 1;
            names.put(run.runId(), ambiguous ? run.label() + " (" + run.runId() + ")" : run.label());
        }
        return names;
    }

    private static List<String> escaped(List<String> texts) {
        return texts.stream().map(HtmlReportFormat::escape).toList();
    }

    private static String runName(Map<String, String> names, String runId) {
        return "<span class=\"name\">" + escape(names.getOrDefault(runId, runId)) + "</span>";
    }

    private static String capitalized(String text) {
        return text.isEmpty() ? text : Character.toUpperCase(text.charAt(0)) + text.substring(1);
    }
}
