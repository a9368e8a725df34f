package io.healbench.analysis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Text of the HTML report: escaping of record text, numbers as the report shows them, links to attempt files. */
final class HtmlReportFormat {

    /** What a number the statistics could not compute (no attempts to count) shows as. */
    static final String NONE = "—";
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private HtmlReportFormat() {}

    /** Text from records (ids, details, reasons) as inert HTML, also inside quoted attribute values. */
    static String escape(String text) {
        if (text == null) {
            return "";
        }
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    /** A share as a percentage with one decimal: {@code 42.3%}. */
    static String percent(double share) {
        return Double.isFinite(share) ? String.format(Locale.ROOT, "%.1f%%", share * 100) : NONE;
    }

    /** A point estimate with its 95% interval, as HTML: {@code 42.3% [30.1–55.2%]}. */
    static String estimate(Estimate estimate) {
        if (estimate == null || !Double.isFinite(estimate.value())) {
            return NONE;
        }
        return percent(estimate.value()) + " <span class=\"ci\">" + interval(estimate) + "</span>";
    }

    /** The 95% interval alone: {@code [30.1–55.2%]}. */
    static String interval(Estimate estimate) {
        if (!Double.isFinite(estimate.low()) || !Double.isFinite(estimate.high())) {
            return "";
        }
        return String.format(Locale.ROOT, "[%.1f–%.1f%%]", estimate.low() * 100, estimate.high() * 100);
    }

    /** A difference of two shares in percentage points, signed: {@code +4.2 pp}. */
    static String percentagePoints(double difference) {
        return Double.isFinite(difference) ? String.format(Locale.ROOT, "%+.1f pp", difference * 100) : NONE;
    }

    /** A difference's 95% interval in percentage points: {@code [−1.0, +9.4] pp}. */
    static String percentagePointsInterval(Estimate difference) {
        if (!Double.isFinite(difference.low()) || !Double.isFinite(difference.high())) {
            return "";
        }
        return String.format(Locale.ROOT, "[%+.1f, %+.1f] pp", difference.low() * 100, difference.high() * 100);
    }

    /** US dollars: cents for sums, finer for the small cost of one attempt. */
    static String usd(double amount) {
        if (!Double.isFinite(amount)) {
            return NONE;
        }
        return Math.abs(amount) >= 1 || amount == 0 ? String.format(Locale.ROOT, "$%,.2f", amount)
                : String.format(Locale.ROOT, "$%.4f", amount);
    }

    static String count(long value) {
        return String.format(Locale.ROOT, "%,d", value);
    }

    /** A p-value: three decimals, or a bound below 0.001. */
    static String pValue(double p) {
        if (!Double.isFinite(p)) {
            return NONE;
        }
        return p < 0.001 ? "&lt; 0.001" : String.format(Locale.ROOT, "%.3f", p);
    }

    /** A similarity (trace similarity of one attempt) with three decimals. */
    static String similarity(double value) {
        return Double.isFinite(value) ? String.format(Locale.ROOT, "%.3f", value) : NONE;
    }

    /**
     * The link to a file of an attempt, relative to the run's directory. Every path segment is percent-encoded, so a
     * directory from a record cannot become a scheme ({@code javascript:}), a query or a fragment.
     */
    static String relativeHref(String directory, String file) {
        List<String> segments = new ArrayList<>();
        for (String segment : (directory == null ? "" : directory).split("/")) {
            if (!segment.isEmpty()) {
                segments.add(percentEncode(segment));
            }
        }
        segments.add(percentEncode(file));
        return String.join("/", segments);
    }

    private static String percentEncode(String segment) {
        StringBuilder out = new StringBuilder();
        for (byte b : segment.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xFF);
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
                    || c == '_' || c == '~') {
                out.append(c);
            } else {
                out.append('%').append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
            }
        }
        return out.toString();
    }
}
