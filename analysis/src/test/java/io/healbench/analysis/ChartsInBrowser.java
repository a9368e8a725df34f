package io.healbench.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import javax.imageio.ImageIO;

/**
 * A written report checked in a real browser: headless Chromium loads the file, every chart must be in its DOM with an
 * svg that holds shapes, laid out at a real size with painted shapes and text; a screenshot of the page must not be
 * blank. Used by this module's tests and by the cli's, on the reports real runs write.
 */
public final class ChartsInBrowser {

    /** The charts every report has, run view and compare view alike, in page order. */
    public static final List<String> CHARTS = List.of("by-error-type", "by-codebase", "by-tier", "cost-vs-correct",
            "guard-decisions");

    static final int WINDOW_WIDTH = 1400;
    static final int WINDOW_HEIGHT = 2400;
    private static final Pattern FIGURE = Pattern.compile(
            "<figure class=\"chart\" data-chart=\"([a-z-]+)\">(.*?)</figure>", Pattern.DOTALL);
    /**
     * Measures each chart as laid out and painted: the svg's box on the page, its shapes with a non-empty box, its texts
     * with a width. It runs in a copy of the page only (the report itself has no script, and its policy forbids them).
     */
    private static final String PROBE = """
            <script>
            for (const figure of document.querySelectorAll('figure.chart')) {
              const svg = figure.querySelector('svg');
              const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
              const shapes = svg ? [...svg.querySelectorAll('rect, path, line, polyline, polygon, circle, ellipse')]
                  .filter(shape => { const b = shape.getBBox(); return b.width > 0 || b.height > 0; }).length : 0;
              const texts = svg ? [...svg.querySelectorAll('text')]
                  .filter(text => text.getComputedTextLength() > 0).length : 0;
              figure.setAttribute('data-rendered',
                  Math.round(box.width) + ' ' + Math.round(box.height) + ' ' + shapes + ' ' + texts);
            }
            </script>
            """;
    /** The probe's result: the browser keeps the page's attributes first and appends the one the probe set. */
    private static final Pattern RENDERED = Pattern.compile(
            "data-chart=\"([a-z-]+)\" data-rendered=\"(\\d+) (\\d+) (\\d+) (\\d+)\"");

    private ChartsInBrowser() {}

    /** Fails (assertion) unless the page renders every chart; leaves a screenshot at {@code png}. */
    public static void check(Path page, Path png) throws Exception {
        HeadlessChromium chromium = HeadlessChromium.find();
        Path temp = Files.createTempDirectory("charts-in-browser");
        // The written file as the browser parsed it: each figure with an svg that holds shapes.
        Map<String, String> figures = figures(chromium.dumpDom(page));
        assertEquals(CHARTS, List.copyOf(figures.keySet()), "the charts in the browser's DOM");
        figures.forEach((chart, body) -> {
            assertTrue(body.contains("<svg"), chart + ": no svg in the DOM");
            assertTrue(body.contains("<rect") || body.contains("<path"), chart + ": no shapes in the DOM");
        });

        // A copy with the probe: every chart laid out at a real size, with painted shapes and text.
        Path probed = temp.resolve("probed.html");
        Files.writeString(probed, Files.readString(page)
                .replaceFirst("<meta http-equiv=\"Content-Security-Policy\"[^>]*>", "")
                .replace("</body>", PROBE + "</body>"));
        Matcher rendered = RENDERED.matcher(chromium.dumpDom(probed));
        int measured = 0;
        while (rendered.find()) {
            String chart = rendered.group(1);
            int width = Integer.parseInt(rendered.group(2));
            int height = Integer.parseInt(rendered.group(3));
            int shapes = Integer.parseInt(rendered.group(4));
            int texts = Integer.parseInt(rendered.group(5));
            assertTrue(width >= 400 && height >= 150, chart + " is laid out at " + width + "x" + height);
            assertTrue(shapes >= 5, chart + " paints " + shapes + " shapes");
            assertTrue(texts >= 3, chart + " paints " + texts + " texts");
            measured++;
        }
        assertEquals(CHARTS.size(), measured, "charts measured in the browser");

        // What a person sees: a screenshot of the page, large and not blank.
        Files.createDirectories(png.toAbsolutePath().getParent());
        chromium.screenshot(page, png, WINDOW_WIDTH, WINDOW_HEIGHT);
        assertTrue(Files.size(png) > 10 * 1024, "screenshot of " + Files.size(png) + " bytes");
        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(WINDOW_WIDTH, image.getWidth());
        assertTrue(distinctColours(image) > 50, "the screenshot is nearly blank");
    }

    /** The page's chart figures by their data-chart key, in order, with their inner HTML. */
    static Map<String, String> figures(String html) {
        Map<String, String> figures = new LinkedHashMap<>();
        Matcher matcher = FIGURE.matcher(html);
        while (matcher.find()) {
            figures.put(matcher.group(1), matcher.group(2));
        }
        return figures;
    }

    private static long distinctColours(BufferedImage image) {
        return IntStream.range(0, image.getHeight())
                .flatMap(y -> IntStream.range(0, image.getWidth()).map(x -> image.getRGB(x, y)))
                .distinct().limit(1000).count();
    }
}
