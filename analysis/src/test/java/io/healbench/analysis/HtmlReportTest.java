package io.healbench.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import io.healbench.analysis.AttemptRecord.GuardDecisionRecord;

/** The report's HTML as text: its charts, its escaping of record text, its links, and that it loads nothing. */
class HtmlReportTest {

    static final List<String> CHARTS = ChartsInBrowser.CHARTS;
    static final String HOSTILE_DETAIL = "<script>alert(1)</script>";

    @Test
    void runReportHasEveryChartAsInlineSvgWithShapes() {
        RunRecord run = sampleRun("run-a", "sample agent · model-x", 1, 0.55, 0.02);
        String html = HtmlReport.ofRun(run, RunStatistics.of(run, 7));

        Map<String, String> figures = figures(html);
        assertEquals(CHARTS, List.copyOf(figures.keySet()));
        figures.forEach((chart, body) -> {
            assertTrue(body.contains("<svg id=\"chart-" + chart + "\"") || body.contains("<svg id='chart-" + chart + "'"),
                    chart + ": no inline svg");
            assertTrue(body.contains("viewBox="), chart + ": the svg must scale with the page");
            assertTrue(body.contains("<rect") || body.contains("<path"), chart + ": the svg draws no shape");
        });
        for (String section : List.of("summary", "outcomes", "charts", "attempts")) {
            assertTrue(html.contains("<section id=\"" + section + "\">"), section);
        }
        assertTrue(html.contains("Correct rate (CR)") && html.contains("95% CI"));
        assertTrue(html.contains("pass@k") && html.contains("pass^k"));
    }

    @Test
    void compareReportHasEveryChartAndThePairedDifferences() {
        List<RunRecord> runs = List.of(sampleRun("run-a", "agent A", 1, 0.45, 0.01),
                sampleRun("run-b", "agent B", 2, 0.65, 0.04), sampleRun("run-c", "agent A", 3, 0.55, 0.02));
        String html = HtmlReport.ofComparison(runs, RunComparison.of(runs, 7));

        Map<String, String> figures = figures(html);
        assertEquals(CHARTS, List.copyOf(figures.keySet()));
        figures.forEach((chart, body) -> assertTrue(body.contains("<svg") && body.contains("<rect"), chart));
        assertTrue(html.contains("<section id=\"differences\">"));
        assertTrue(html.contains("McNemar p") && html.contains("Flipped instances"));
        for (PairedDifference difference : RunComparison.of(runs, 7).differences()) {
            assertTrue(html.contains(difference.flippedToPass().size() + " to pass, " + difference.flippedToFail().size()
                    + " to fail"), difference.otherRunId());
        }
        // Two runs share the label "agent A": the run id tells them apart.
        assertTrue(html.contains("agent A (run-a)") && html.contains("agent A (run-c)") && html.contains(">agent B<"));
    }

    @Test
    void recordTextIsEscapedEverywhere() {
        List<AttemptRecord> attempts = new ArrayList<>();
        attempts.add(attempt("a-1", "inst\"><img src=x onerror=alert(2)>", 0, "<b>codebase</b>", "tier<i>",
                "Type<u>Error", OutcomeClass.HEALED, true, HOSTILE_DETAIL, "attempts/a-1",
                List.of(new GuardDecisionRecord(1, "static<s>", "clean\"", "reason' onmouseover='alert(3)"))));
        attempts.add(attempt("a-2", "plain", 0, "toolz", "injected", "KeyError", OutcomeClass.INFRASTRUCTURE, false,
                "sandbox <died>", "attempts/a-2", List.of()));
        RunRecord run = new RunRecord("run-<x>", "label <em>", "agent&co", "enforce", 1, "SUCCEEDED",
                "2025-01-01T00:00:00Z", attempts);
        String html = HtmlReport.ofRun(run, RunStatistics.of(run, 7));
        String comparison = HtmlReport.ofComparison(List.of(run), RunComparison.of(List.of(run), 7));

        for (String page : List.of(html, comparison)) {
            assertFalse(page.contains("<script"), "no script element at all");
            assertFalse(page.contains("<img"), "an id became markup");
            assertFalse(page.contains("<b>codebase") || page.contains("<u>") || page.contains("<em>")
                    || page.contains("<i>") || page.contains("<s>"), "record text became markup");
            assertFalse(page.contains("onmouseover='alert"), "an attribute was closed by a reason");
        }
        assertTrue(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assertTrue(html.contains("inst&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"));
        assertTrue(html.contains("title=\"heal point 1: reason&#39; onmouseover=&#39;alert(3)\""));
        // JFreeSVG escapes the chart labels it writes.
        assertTrue(html.contains("&lt;b&gt;codebase&lt;/b&gt;"));
    }

    @Test
    void eachAttemptLinksItsFilesRelativeToTheRunDirectory() {
        List<AttemptRecord> attempts = List.of(
                attempt("a-1", "one", 0, "toolz", "injected", "KeyError", OutcomeClass.HEALED, true, "", "attempts/a-1",
                        List.of()),
                attempt("a-2", "two", 0, "toolz", "injected", "KeyError", OutcomeClass.NOT_HEALED, false, "",
                        "javascript:alert(1)//x y", List.of()));
        RunRecord run = new RunRecord("run-1", "links", "agent", "off", 1, "SUCCEEDED", "", attempts);
        String html = HtmlReport.ofRun(run, RunStatistics.of(run, 7));

        for (String file : List.of("report.json", "trajectory.json", "events.jsonl")) {
            assertTrue(html.contains("href=\"attempts/a-1/" + file + "\""), file);
        }
        // A directory cannot turn into a scheme: its colon and space are percent-encoded.
        assertTrue(html.contains("href=\"javascript%3Aalert%281%29/x%20y/report.json\""));
        assertFalse(html.contains("href=\"javascript:"));
    }

    @Test
    void reportLoadsNothingFromElsewhere() {
        RunRecord run = sampleRun("run-a", "sample", 1, 0.5, 0.02);
        String html = HtmlReport.ofRun(run, RunStatistics.of(run, 7));

        assertFalse(html.contains("<link") || html.contains("<script") || html.contains("<img") || html.contains("@import"));
        assertFalse(Pattern.compile("(src|href)=[\"']?(https?:|//)").matcher(html).find());
        assertFalse(html.contains("url(http"));
        assertTrue(html.contains("default-src 'none'"), "the page forbids loading anything");
    }

    @Test
    void runWithoutAgentAttemptsShowsUndefinedRatesAndEmptyCharts() {
        Estimate nothing = new Estimate(0, 0, 0);
        Map<OutcomeClass, Integer> byClass = new EnumMap<>(OutcomeClass.class);
        byClass.put(OutcomeClass.INFRASTRUCTURE, 1);
        RunStatistics stats = new RunStatistics("run-0", "empty", 1, 0, byClass, List.of("a-1"), List.of(), nothing, nothing,
                nothing, Map.of(), Map.of(), List.of(), 0, List.of(), List.of(), List.of(), 0, 0, 0, Map.of());
        RunRecord run = new RunRecord("run-0", "empty", "agent", "off", 1, "FAILED", "", List.of(
                attempt("a-1", "one", 0, "toolz", "injected", "KeyError", OutcomeClass.INFRASTRUCTURE, false, "", "a", List.of())));
        String html = HtmlReport.ofRun(run, stats);

        assertEquals(CHARTS, List.copyOf(figures(html).keySet()));
        assertTrue(html.contains("no agent attempts"));
        assertTrue(html.contains("No guard decisions were recorded"));
        assertFalse(html.contains("0.0% <span class=\"ci\">"), "zeros without attempts must not read as measured");
    }

    /** The chart figures of a page, by their data-chart key, in page order. */
    static Map<String, String> figures(String html) {
        return ChartsInBrowser.figures(html);
    }

    static AttemptRecord attempt(String id, String instance, int repeat, String codebase, String tier, String errorType,
            OutcomeClass outcome, boolean passed, String detail, String directory, List<GuardDecisionRecord> guard) {
        return new AttemptRecord(id, instance, repeat, codebase, tier, errorType, outcome,
                outcome == OutcomeClass.HEALED || outcome == OutcomeClass.NOT_HEALED, passed, passed ? 0.9 : 0.3, 0.01,
                1000, 200, guard, detail, directory);
    }

    /**
     * A run over a fixed set of 30 instances, 3 repeats each, whose outcomes are drawn from {@code seed}: {@code skill}
     * is roughly its correct rate, {@code costPerAttempt} its mean cost. One detail is hostile, as records can be.
     */
    static RunRecord sampleRun(String runId, String label, long seed, double skill, double costPerAttempt) {
        String[] codebases = {"cpython-stdlib", "toolz", "attrs", "more-itertools", "python-dateutil"};
        String[] errorTypes = {"TypeError", "KeyError", "AttributeError", "ValueError", "IndexError", "ZeroDivisionError"};
        String[] tiers = {"real_bug", "injected", "synthetic"};
        Random random = new Random(seed);
        List<AttemptRecord> attempts = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            String codebase = codebases[i % codebases.length];
            String errorType = errorTypes[(i * 7) % errorTypes.length];
            String tier = tiers[i % tiers.length];
            String instance = codebase + "-" + errorType.toLowerCase() + "-" + (i + 1);
            // Instances differ in difficulty, so repeats of one instance agree more often than chance.
            double chance = Math.min(0.95, Math.max(0.05, skill + (i % 5 - 2) * 0.12 - (tier.equals("real_bug") ? 0.1 : 0)));
            for (int repeat = 0; repeat < 3; repeat++) {
                String attemptId = String.format("%s-att-%03d", runId, i * 3 + repeat);
                double draw = random.nextDouble();
                OutcomeClass outcome = random.nextDouble() < 0.03 ? OutcomeClass.INFRASTRUCTURE
                        : random.nextDouble() < 0.015 ? OutcomeClass.GRADER
                        : draw < chance ? OutcomeClass.HEALED
                        : draw < chance + 0.15 ? OutcomeClass.NOT_HEALED
                        : draw < chance + 0.22 ? OutcomeClass.RERAISED
                        : draw < chance + 0.27 ? OutcomeClass.BUDGET : OutcomeClass.AGENT_ERROR;
                boolean passed = outcome == OutcomeClass.HEALED;
                boolean proceeded = passed || outcome == OutcomeClass.NOT_HEALED;
                List<GuardDecisionRecord> guard = new ArrayList<>();
                if (proceeded) {
                    double g = random.nextDouble();
                    guard.add(new GuardDecisionRecord(1, "static", g < 0.7 ? "clean" : g < 0.9 ? "unknown" : "tainted",
                            "flow analysis of heal point 1"));
                    guard.add(new GuardDecisionRecord(1, "dynamic", g < 0.85 ? "allowed" : g < 0.95 ? "waived" : "blocked",
                            "healrt sink check"));
                }
                String detail = switch (outcome) {
                    case HEALED -> "test suite passed";
                    case NOT_HEALED -> "AssertionError: expected 3, got None\n  File \"test_core.py\", line 41";
                    case RERAISED -> "the agent re-raised " + errorType;
                    case AGENT_ERROR -> "agent returned an invalid heal: " + HOSTILE_DETAIL;
                    case BUDGET -> "token budget of 200000 exhausted";
                    case INFRASTRUCTURE -> "sandbox start timed out after 120 s";
                    case GRADER -> "grader crashed";
                };
                double cost = outcome.chargedToAgent() ? costPerAttempt * (0.5 + random.nextDouble()) * (1 + i % 5 * 0.3) : 0;
                attempts.add(new AttemptRecord(attemptId, instance, repeat, codebase, tier, errorType, outcome, proceeded,
                        passed, proceeded ? 0.5 + random.nextDouble() * 0.5 : 0, cost, Math.round(cost * 2.0e5),
                        Math.round(cost * 2.5e4), guard, detail, "attempts/" + attemptId));
            }
        }
        return new RunRecord(runId, label, label.split(" ")[0], "enforce", 3, "SUCCEEDED", "2025-06-01T12:00:00Z",
                attempts);
    }
}
