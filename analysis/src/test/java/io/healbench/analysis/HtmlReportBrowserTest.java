package io.healbench.analysis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The reports in a real browser: headless Chromium loads the written files, and the charts must be there and drawn, with
 * a size on the page and visible shapes. The files and their screenshots stay in target/ to be looked at:
 * report-sample.html/.png (a run) and report-compare-sample.html/.png (three runs).
 */
class HtmlReportBrowserTest {

    private static final Path TARGET = Path.of("target");

    @Test
    void runReportRendersEveryChart() throws Exception {
        RunRecord run = HtmlReportTest.sampleRun("run-7f3a", "sample agent · model-x", 1, 0.55, 0.02);
        Path page = write("report-sample.html", HtmlReport.ofRun(run, RunStatistics.of(run, 7)));
        ChartsInBrowser.check(page, TARGET.resolve("report-sample.png"));
    }

    @Test
    void compareReportRendersEveryChart() throws Exception {
        List<RunRecord> runs = List.of(
                HtmlReportTest.sampleRun("run-7f3a", "agent A · model-x", 1, 0.45, 0.01),
                HtmlReportTest.sampleRun("run-81c2", "agent B · model-y", 2, 0.65, 0.04),
                HtmlReportTest.sampleRun("run-9d04", "agent C · model-z", 3, 0.55, 0.02));
        Path page = write("report-compare-sample.html", HtmlReport.ofComparison(runs, RunComparison.of(runs, 7)));
        ChartsInBrowser.check(page, TARGET.resolve("report-compare-sample.png"));
    }

    private static Path write(String name, String html) throws IOException {
        Files.createDirectories(TARGET);
        Path page = TARGET.resolve(name).toAbsolutePath();
        Files.writeString(page, html, StandardCharsets.UTF_8);
        return page;
    }
}
