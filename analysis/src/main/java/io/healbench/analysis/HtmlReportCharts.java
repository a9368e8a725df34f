package io.healbench.analysis;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Paint;
import java.awt.Rectangle;
import java.awt.geom.Ellipse2D;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.text.NumberFormat;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.StandardChartTheme;
import org.jfree.chart.axis.AxisLocation;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.block.BlockBorder;
import org.jfree.chart.labels.ItemLabelAnchor;
import org.jfree.chart.labels.ItemLabelPosition;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.DefaultDrawingSupplier;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.renderer.xy.XYErrorRenderer;
import org.jfree.chart.title.LegendTitle;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.YIntervalSeries;
import org.jfree.data.xy.YIntervalSeriesCollection;
import org.jfree.svg.MeetOrSlice;
import org.jfree.svg.PreserveAspectRatio;
import org.jfree.svg.SVGGraphics2D;
import org.jfree.svg.ViewBox;

/**
 * The report's charts: each one is built with JFreeChart and drawn by JFreeSVG into an inline {@code <svg>} element
 * that scales with the page (a view box, no fixed size). Labels come from records and may be hostile: JFreeSVG escapes
 * every string it writes.
 */
final class HtmlReportCharts {

    /** The {@code data-chart} keys of the figures, the same in the run view and in the compare view. */
    static final String BY_ERROR_TYPE = "by-error-type";
    static final String BY_CODEBASE = "by-codebase";
    static final String BY_TIER = "by-tier";
    static final String COST_VS_CORRECT = "cost-vs-correct";
    static final String GUARD_DECISIONS = "guard-decisions";

    /** One point of the cost chart: a code base of one run, or a whole run in the compare view. */
    record CostPoint(String name, double costPerAttemptUsd, double correctRate, double correctLow, double correctHigh) {}

    /** Colour-blind-safe categorical colours (Okabe and Ito's palette, without its black and yellow). */
    private static final Color[] PALETTE = {
        new Color(0x0072B2), new Color(0xE69F00), new Color(0x009E73), new Color(0xD55E00),
        new Color(0x56B4E9), new Color(0xCC79A7), new Color(0x8C6D31), new Color(0x6B7280)};
    private static final Color TEXT = new Color(0x1F2937);
    private static final Color MUTED_TEXT = new Color(0x4B5563);
    private static final Color GRID = new Color(0xE5E7EB);
    private static final int WIDTH = 640;
    private static final int MIN_HEIGHT = 260;
    private static final StandardChartTheme THEME = theme();

    private HtmlReportCharts() {}

    /** The proceed rate, correct rate and trace similarity of each group (a run's error types, code bases, tiers). */
    static String groupRates(String key, List<GroupRates> groups) {
        DefaultCategoryDataset dataset = new DefaultCategoryDataset();
        for (GroupRates group : groups) {
            String label = group.key() + "  (n=" + group.attempts() + ")";
            dataset.addValue(finiteOrNull(group.proceedRate()), "proceed rate", label);
            dataset.addValue(finiteOrNull(group.correctRate()), "correct rate", label);
            dataset.addValue(finiteOrNull(group.traceSimilarity()), "trace similarity", label);
        }
        JFreeChart chart = horizontalBars(dataset, "rate · mean similarity", false);
        return svg(chart, key, WIDTH, barChartHeight(groups.size(), 3));
    }

    /** The correct rate of each group in each run (the compare view): one bar per run within each group. */
    static String correctRateByRun(String key, Map<String, List<GroupRates>> groupsByRun) {
        Set<String> categories = new TreeSet<>();
        groupsByRun.values().forEach(groups -> groups.forEach(group -> categories.add(group.key())));
        DefaultCategoryDataset dataset = new DefaultCategoryDataset();
        for (Map.Entry<String, List<GroupRates>> run : groupsByRun.entrySet()) {
            for (String category : categories) {
                Double correctRate = run.getValue().stream().filter(group -> group.key().equals(category)).findFirst()
                        .map(group -> finiteOrNull(group.correctRate())).orElse(null);
                dataset.addValue(correctRate, run.getKey(), category);
            }
        }
        JFreeChart chart = horizontalBars(dataset, "correct rate", false);
        return svg(chart, key, WIDTH, barChartHeight(categories.size(), groupsByRun.size()));
    }

    /** Guard decisions per row (a stage, or a run's stage in the compare view), stacked by verdict. */
    static String guardDecisions(String key, Map<String, Map<String, Integer>> verdictCountsByRow) {
        Set<String> verdicts = new TreeSet<>();
        verdictCountsByRow.values().forEach(counts -> verdicts.addAll(counts.keySet()));
        DefaultCategoryDataset dataset = new DefaultCategoryDataset();
        for (Map.Entry<String, Map<String, Integer>> row : verdictCountsByRow.entrySet()) {
            for (String verdict : verdicts) {
                dataset.addValue(row.getValue().getOrDefault(verdict, 0), verdict, row.getKey());
            }
        }
        JFreeChart chart = horizontalBars(dataset, "decisions", true);
        ((CategoryPlot) chart.getPlot()).setNoDataMessage("No guard decisions were recorded");
        return svg(chart, key, WIDTH, barChartHeight(verdictCountsByRow.size(), 1));
    }

    /** Mean cost per attempt against the correct rate, one labelled point each, with the rate's interval when known. */
    static String costAgainstCorrectRate(String key, List<CostPoint> points, String pointKind) {
        YIntervalSeriesCollection dataset = new YIntervalSeriesCollection();
        List<Color> colours = new ArrayList<>();
        for (int i = 0; i < points.size(); i++) {
            CostPoint point = points.get(i);
            if (!Double.isFinite(point.costPerAttemptUsd()) || !Double.isFinite(point.correctRate())) {
                continue;
            }
            // The colour follows the point's place in the list, so a run keeps the colour it has in the other charts.
            colours.add(PALETTE[i % PALETTE.length]);
            YIntervalSeries series = new YIntervalSeries(uniqueSeriesKey(dataset, point.name()));
            series.add(point.costPerAttemptUsd(), point.correctRate(),
                    Double.isFinite(point.correctLow()) ? point.correctLow() : point.correctRate(),
                    Double.isFinite(point.correctHigh()) ? point.correctHigh() : point.correctRate());
            dataset.addSeries(series);
        }
        JFreeChart chart = ChartFactory.createScatterPlot(null, "mean cost per attempt (USD)", "correct rate", dataset,
                PlotOrientation.VERTICAL, false, false, false);
        style(chart);
        XYPlot plot = chart.getXYPlot();
        plot.setNoDataMessage("No " + pointKind + " with a cost and a correct rate");
        XYErrorRenderer renderer = new XYErrorRenderer();
        renderer.setDrawXError(false);
        renderer.setErrorStroke(new BasicStroke(1.5f));
        renderer.setCapLength(8);
        renderer.setDefaultLinesVisible(false);
        renderer.setDefaultShape(new Ellipse2D.Double(-5, -5, 10, 10));
        renderer.setAutoPopulateSeriesShape(false);
        for (int series = 0; series < colours.size(); series++) {
            renderer.setSeriesPaint(series, colours.get(series));
        }
        // Each point names itself: a legend of many code bases would be harder to read than the labels.
        renderer.setDefaultItemLabelGenerator((data, series, item) -> data.getSeriesKey(series).toString());
        renderer.setDefaultItemLabelsVisible(true);
        renderer.setDefaultItemLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        renderer.setDefaultItemLabelPaint(TEXT);
        renderer.setDefaultPositiveItemLabelPosition(
                new ItemLabelPosition(ItemLabelAnchor.OUTSIDE3, TextAnchor.CENTER_LEFT));
        plot.setRenderer(renderer);
        plot.setRangeAxis(percentAxis("correct rate"));
        NumberAxis costAxis = (NumberAxis) plot.getDomainAxis();
        costAxis.setAutoRangeIncludesZero(true);
        costAxis.setNumberFormatOverride(new DecimalFormat("$#,##0.00##", DecimalFormatSymbols.getInstance(Locale.ROOT)));
        // Room on the right for the label of the costliest point.
        costAxis.setUpperMargin(0.25);
        if (points.stream().allMatch(point -> point.costPerAttemptUsd() == 0)) {
            // Offline agents cost nothing: an axis from $0 up, not one centred on zero with negative dollars.
            costAxis.setRange(0.0, 0.01);
        }
        return svg(chart, key, WIDTH, 380);
    }

    /** Bars along a value axis at the bottom; the categories need no axis title, the figure's caption names them. */
    private static JFreeChart horizontalBars(DefaultCategoryDataset dataset, String valueLabel, boolean stacked) {
        JFreeChart chart = stacked
                ? ChartFactory.createStackedBarChart(null, null, valueLabel, dataset, PlotOrientation.HORIZONTAL, true,
                        false, false)
                : ChartFactory.createBarChart(null, null, valueLabel, dataset, PlotOrientation.HORIZONTAL, true, false,
                        false);
        style(chart);
        CategoryPlot plot = chart.getCategoryPlot();
        plot.setRangeAxisLocation(AxisLocation.BOTTOM_OR_LEFT);
        plot.setNoDataMessage("No data");
        CategoryAxis categories = plot.getDomainAxis();
        categories.setMaximumCategoryLabelWidthRatio(0.32f);
        categories.setMaximumCategoryLabelLines(2);
        categories.setCategoryMargin(0.25);
        categories.setLowerMargin(0.02);
        categories.setUpperMargin(0.02);
        BarRenderer renderer = (BarRenderer) plot.getRenderer();
        // Fixed colours per series (the theme's supplier hands out colours in the order they are asked for).
        for (int series = 0; series < dataset.getRowCount(); series++) {
            renderer.setSeriesPaint(series, PALETTE[series % PALETTE.length]);
        }
        renderer.setItemMargin(0.04);
        renderer.setMaximumBarWidth(0.12);
        if (stacked) {
            NumberAxis counts = (NumberAxis) plot.getRangeAxis();
            counts.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        } else {
            plot.setRangeAxis(percentAxis(valueLabel));
        }
        return chart;
    }

    private static NumberAxis percentAxis(String label) {
        NumberAxis axis = new NumberAxis(label);
        axis.setRange(0.0, 1.0);
        axis.setTickUnit(new NumberTickUnit(0.2, NumberFormat.getPercentInstance(Locale.ROOT)));
        axis.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        axis.setTickLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        axis.setLabelPaint(MUTED_TEXT);
        axis.setTickLabelPaint(MUTED_TEXT);
        axis.setAxisLinePaint(GRID);
        axis.setTickMarkPaint(GRID);
        return axis;
    }

    /** A quiet look shared by every chart: white ground, light grid, the palette, flat bars. */
    private static StandardChartTheme theme() {
        StandardChartTheme theme = new StandardChartTheme("HealBench report");
        theme.setExtraLargeFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
        theme.setLargeFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        theme.setRegularFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        theme.setSmallFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
        theme.setChartBackgroundPaint(Color.WHITE);
        theme.setPlotBackgroundPaint(Color.WHITE);
        theme.setPlotOutlinePaint(Color.WHITE);
        theme.setDomainGridlinePaint(GRID);
        theme.setRangeGridlinePaint(GRID);
        theme.setAxisLabelPaint(MUTED_TEXT);
        theme.setTickLabelPaint(MUTED_TEXT);
        theme.setItemLabelPaint(TEXT);
        theme.setLegendItemPaint(TEXT);
        theme.setLegendBackgroundPaint(Color.WHITE);
        theme.setBarPainter(new StandardBarPainter());
        theme.setShadowVisible(false);
        theme.setAxisOffset(RectangleInsets.ZERO_INSETS);
        theme.setDrawingSupplier(new DefaultDrawingSupplier(PALETTE, PALETTE, new Paint[] {TEXT},
                DefaultDrawingSupplier.DEFAULT_STROKE_SEQUENCE, DefaultDrawingSupplier.DEFAULT_OUTLINE_STROKE_SEQUENCE,
                DefaultDrawingSupplier.DEFAULT_SHAPE_SEQUENCE));
        return theme;
    }

    private static void style(JFreeChart chart) {
        THEME.apply(chart);
        chart.setPadding(new RectangleInsets(8, 4, 8, 16));
        LegendTitle legend = chart.getLegend();
        if (legend != null) {
            legend.setPosition(RectangleEdge.TOP);
            legend.setFrame(BlockBorder.NONE);
        }
    }

    /** Tall enough that each bar stays readable however many groups there are. */
    private static int barChartHeight(int categories, int barsPerCategory) {
        int perCategory = Math.max(22, barsPerCategory * 11 + 12);
        return Math.max(MIN_HEIGHT, 110 + categories * perCategory);
    }

    private static String svg(JFreeChart chart, String key, int width, int height) {
        SVGGraphics2D g2 = new SVGGraphics2D(width, height);
        // Several charts share one page, so their clip-path ids must differ; a fixed prefix also keeps the output
        // the same for the same data (the default prefix is time-based).
        g2.setDefsKeyPrefix(key + "-");
        chart.draw(g2, new Rectangle(width, height));
        return g2.getSVGElement("chart-" + key, false, new ViewBox(0, 0, width, height), PreserveAspectRatio.XMID_YMID,
                MeetOrSlice.MEET);
    }

    private static Double finiteOrNull(double value) {
        return Double.isFinite(value) ? value : null;
    }

    private static String uniqueSeriesKey(YIntervalSeriesCollection dataset, String name) {
        Set<Comparable<?>> taken = new HashSet<>();
        for (int i = 0; i < dataset.getSeriesCount(); i++) {
            taken.add(dataset.getSeriesKey(i));
        }
        String key = name;
        for (int copy = 2; taken.contains(key); copy++) {
            key = name + " (" + copy + ")";
        }
        return key;
    }
}
