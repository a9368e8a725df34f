package io.healbench.analysis;

import static io.healbench.analysis.HtmlReportFormat.escape;

import java.util.List;

/**
 * The frame of a report page: one HTML document with its style sheet inline, no script and a content security policy
 * that forbids loading anything, so the file reads the same offline and text from records cannot run even if it got
 * through unescaped. The builders take HTML fragments: whoever puts record text into a fragment escapes it.
 */
final class HtmlReportPage {

    private static final String STYLE = """
            :root {
              --ink: #1f2937; --muted: #6b7280; --line: #e5e7eb; --soft: #f8fafc; --accent: #0072b2;
              --good: #047857; --good-bg: #ecfdf5; --bad: #b91c1c; --bad-bg: #fef2f2;
              --warn: #92400e; --warn-bg: #fffbeb; --neutral-bg: #f1f5f9;
            }
            * { box-sizing: border-box; }
            body { margin: 0; background: #f3f4f6; color: var(--ink);
              font: 14px/1.5 "DejaVu Sans", "Segoe UI", Helvetica, Arial, sans-serif; }
            main { max-width: 1360px; margin: 0 auto; padding: 0 24px 48px; }
            header.page { background: #111827; color: #f9fafb; padding: 28px 24px 22px; margin-bottom: 24px; }
            header.page .inner { max-width: 1312px; margin: 0 auto; }
            header.page .eyebrow { text-transform: uppercase; letter-spacing: .08em; font-size: 12px; color: #9ca3af; }
            header.page h1 { margin: 4px 0 12px; font-size: 26px; font-weight: 600; overflow-wrap: anywhere; }
            header.page dl { display: flex; flex-wrap: wrap; gap: 8px 28px; margin: 0; }
            header.page dt { font-size: 11px; text-transform: uppercase; letter-spacing: .06em; color: #9ca3af; }
            header.page dd { margin: 0; font-size: 14px; overflow-wrap: anywhere; }
            section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 18px 20px 20px;
              margin-bottom: 20px; }
            section > h2 { margin: 0 0 4px; font-size: 18px; font-weight: 600; }
            section > p.lead { margin: 0 0 14px; color: var(--muted); }
            h3 { margin: 0 0 8px; font-size: 15px; font-weight: 600; }
            .cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr)); gap: 14px; }
            .card { border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; background: var(--soft); }
            .card .name { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .05em; }
            .card .value { font-size: 26px; font-weight: 600; margin: 2px 0; }
            .card .ci, .card .note { font-size: 12px; color: var(--muted); }
            .card.primary { border-color: #bfdbfe; background: #eff6ff; }
            .panels { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 20px 32px; }
            .panels { margin-top: 12px; }
            .panels > div { min-width: 0; }
            h3.spaced { margin-top: 20px; }
            .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(560px, 1fr)); gap: 20px;
              align-items: start; }
            figure.chart { margin: 0; border: 1px solid var(--line); border-radius: 8px; padding: 14px 14px 10px;
              background: #fff; }
            figure.chart figcaption p { margin: 0 0 6px; color: var(--muted); font-size: 13px; }
            figure.chart svg { display: block; width: 100%; height: auto; }
            details { margin-top: 8px; }
            details > summary { cursor: pointer; color: var(--accent); font-size: 13px; }
            details[open] > summary { margin-bottom: 6px; }
            .name { display: inline-block; min-width: 140px; }
            table { border-collapse: collapse; width: 100%; font-size: 13px; }
            th, td { padding: 6px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
            th { background: var(--soft); font-weight: 600; color: #374151; }
            tbody tr:nth-child(even) td { background: #fcfcfd; }
            td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
            td.num { white-space: nowrap; }
            .flips { min-width: 300px; margin: 0; }
            .flips p.meta { margin: 6px 0 2px; }
            .ci { color: var(--muted); font-size: 12px; white-space: nowrap; }
            .scroll { overflow-x: auto; }
            .attempts thead th { position: sticky; top: 0; z-index: 1; box-shadow: 0 1px 0 var(--line); }
            .attempts td:first-child { min-width: 210px; }
            .attempts th, .attempts td { padding: 6px 8px; }
            .meta { color: var(--muted); font-size: 12px; }
            code, .id { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12px;
              overflow-wrap: anywhere; }
            .detail { min-width: 220px; max-width: 340px; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12px;
              margin: 0; }
            .files { display: block; width: 128px; }
            .files a { display: inline-block; margin-right: 8px; white-space: nowrap; }
            a { color: var(--accent); text-decoration: none; }
            a:hover { text-decoration: underline; }
            .badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; white-space: nowrap;
              background: var(--neutral-bg); color: #334155; }
            .badge.healed, .badge.pass { background: var(--good-bg); color: var(--good); }
            .badge.not-healed, .badge.reraised, .badge.fail { background: var(--bad-bg); color: var(--bad); }
            .badge.agent-error, .badge.budget, .badge.partial { background: var(--warn-bg); color: var(--warn); }
            .badge.excluded { background: #e2e8f0; color: #475569; }
            .verdict { display: inline-block; margin: 0 4px 2px 0; padding: 0 6px; border: 1px solid var(--line);
              border-radius: 4px; font-size: 11px; white-space: nowrap; }
            ul.ids { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 6px; }
            ul.ids li { background: var(--neutral-bg); border-radius: 4px; padding: 0 6px; }
            .muted { color: var(--muted); }
            .positive { color: var(--good); }
            .negative { color: var(--bad); }
            footer { color: var(--muted); font-size: 12px; text-align: center; margin-top: 8px; }
            """;

    /** Longer id lists fold behind their count, so that one long list does not push the rest of the page away. */
    private static final int FOLDED_LIST_SIZE = 12;

    private final StringBuilder body = new StringBuilder(64 * 1024);
    private final String title;

    HtmlReportPage(String title) {
        this.title = title;
    }

    /** The dark band on top: what the page is, its title, and facts as name/value pairs (values are HTML). */
    HtmlReportPage header(String kind, String heading, List<String[]> facts) {
        body.append("<header class=\"page\"><div class=\"inner\"><div class=\"eyebrow\">").append(escape(kind))
                .append("</div><h1>").append(escape(heading)).append("</h1><dl>");
        for (String[] fact : facts) {
            body.append("<div><dt>").append(escape(fact[0])).append("</dt><dd>").append(fact[1]).append("</dd></div>");
        }
        body.append("</dl></div></header><main>");
        return this;
    }

    /** A titled section; {@code lead} is plain text, {@code content} HTML. */
    HtmlReportPage section(String id, String heading, String lead, String content) {
        body.append("<section id=\"").append(escape(id)).append("\"><h2>").append(escape(heading)).append("</h2>");
        if (lead != null && !lead.isEmpty()) {
            body.append("<p class=\"lead\">").append(escape(lead)).append("</p>");
        }
        body.append(content).append("</section>");
        return this;
    }

    /** The whole document. */
    String html() {
        return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                + "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
                + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                + "<title>" + escape(title) + "</title>\n<style>\n" + STYLE + "</style>\n</head>\n<body>\n" + body
                + "<footer>HealBench report. The charts are drawn with JFreeChart and JFreeSVG.</footer>\n</main>\n"
                + "</body>\n</html>\n";
    }

    /** A table of HTML cells; a header starting with {@code #} marks a numeric (right-aligned) column. */
    static String table(List<String> headers, List<List<String>> rows) {
        return table(headers, rows, null);
    }

    /** A table as {@link #table(List, List)}, with an id per row ({@code rowIds} may be null or hold nulls). */
    static String table(List<String> headers, List<List<String>> rows, List<String> rowIds) {
        StringBuilder out = new StringBuilder("<table><thead><tr>");
        for (String header : headers) {
            boolean numeric = header.startsWith("#");
            out.append(numeric ? "<th class=\"num\">" : "<th>").append(escape(numeric ? header.substring(1) : header))
                    .append("</th>");
        }
        out.append("</tr></thead><tbody>");
        for (int r = 0; r < rows.size(); r++) {
            String id = rowIds == null ? null : rowIds.get(r);
            out.append(id == null ? "<tr>" : "<tr id=\"" + escape(id) + "\">");
            List<String> row = rows.get(r);
            for (int c = 0; c < row.size(); c++) {
                boolean numeric = c < headers.size() && headers.get(c).startsWith("#");
                out.append(numeric ? "<td class=\"num\">" : "<td>").append(row.get(c)).append("</td>");
            }
            out.append("</tr>");
        }
        return out.append("</tbody></table>").toString();
    }

    /** A chart's figure: the stable {@code data-chart} marker, a caption, the inline SVG and its numbers below. */
    static String figure(String key, String heading, String caption, String svg, String dataTable) {
        return "<figure class=\"chart\" data-chart=\"" + escape(key) + "\"><figcaption><h3>" + escape(heading) + "</h3><p>"
                + escape(caption) + "</p></figcaption>" + svg + "<details><summary>The numbers</summary><div class=\"scroll\">"
                + dataTable + "</div></details></figure>";
    }

    /** Ids as a wrapped list of chips, folded behind their count when there are many; {@code empty} when there are none. */
    static String idList(List<String> idsHtml, String noun, String empty) {
        if (idsHtml.isEmpty()) {
            return "<p class=\"muted\">" + escape(empty) + "</p>";
        }
        return idsHtml.size() <= FOLDED_LIST_SIZE ? chips(idsHtml)
                : "<details><summary>" + idsHtml.size() + " " + escape(noun) + "</summary>" + chips(idsHtml) + "</details>";
    }

    /** Ids (HTML) as a wrapped list of chips. */
    static String chips(List<String> idsHtml) {
        StringBuilder out = new StringBuilder("<ul class=\"ids\">");
        idsHtml.forEach(id -> out.append("<li class=\"id\">").append(id).append("</li>"));
        return out.append("</ul>").toString();
    }
}
