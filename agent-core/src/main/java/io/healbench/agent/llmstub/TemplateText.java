package io.healbench.agent.llmstub;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A reply string with placeholders: {@code {{last_tool_result}}}, {@code {{turn}}} and {@code {{match:N}}}.
 * It is parsed when the script loads, so that a misspelt placeholder or a group the rule's regex does not have
 * fails there, naming where it is, and not in the middle of a benchmark.
 */
final class TemplateText {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{(.*?)}}");
    private static final Pattern MATCH_GROUP = Pattern.compile("match:(\\d{1,9})");
    private static final String KNOWN = "{{last_tool_result}}, {{turn}}, {{match:N}}";

    /** Means the rule has no regex, so {@code {{match:N}}} has nothing to refer to. */
    static final int NO_REGEX = -1;

    /** One literal run or one placeholder of the template. */
    private interface Piece {
        void appendTo(StringBuilder out, TemplateValues values);
    }

    private record Literal(String text) implements Piece {
        public void appendTo(StringBuilder out, TemplateValues values) {
            out.append(text);
        }
    }

    private record LastToolResult() implements Piece {
        public void appendTo(StringBuilder out, TemplateValues values) {
            out.append(values.lastToolResult());
        }
    }

    private record Turn() implements Piece {
        public void appendTo(StringBuilder out, TemplateValues values) {
            out.append(values.turn());
        }
    }

    private record Group(int index) implements Piece {
        public void appendTo(StringBuilder out, TemplateValues values) {
            out.append(values.groups().get(index));
        }
    }

    private final List<Piece> pieces;

    private TemplateText(List<Piece> pieces) {
        this.pieces = List.copyOf(pieces);
    }

    /**
     * @param where      the location for error messages, e.g. {@code file: rules[0].reply.text}
     * @param groupCount the number of groups of the rule's regex, or {@link #NO_REGEX}
     */
    static TemplateText parse(String raw, String where, int groupCount) {
        List<Piece> pieces = new ArrayList<>();
        Matcher placeholder = PLACEHOLDER.matcher(raw);
        int end = 0;
        while (placeholder.find()) {
            if (placeholder.start() > end) {
                pieces.add(new Literal(raw.substring(end, placeholder.start())));
            }
            pieces.add(piece(placeholder.group(1).strip(), placeholder.group(), where, groupCount));
            end = placeholder.end();
        }
        if (end < raw.length()) {
            pieces.add(new Literal(raw.substring(end)));
        }
        return new TemplateText(pieces);
    }

    String render(TemplateValues values) {
        StringBuilder out = new StringBuilder();
        for (Piece piece : pieces) {
            piece.appendTo(out, values);
        }
        return out.toString();
    }

    private static Piece piece(String name, String written, String where, int groupCount) {
        if (name.equals("last_tool_result")) {
            return new LastToolResult();
        }
        if (name.equals("turn")) {
            return new Turn();
        }
        Matcher group = MATCH_GROUP.matcher(name);
        if (!group.matches()) {
            throw new LlmStubScriptException(where + ": unknown template " + written + " (known: " + KNOWN + ")");
        }
        if (groupCount == NO_REGEX) {
            throw new LlmStubScriptException(where + ": " + written
                    + " needs a 'matches' or 'last_tool_result_matches' regex in the rule's 'when'");
        }
        int index = Integer.parseInt(group.group(1));
        if (index > groupCount) {
            throw new LlmStubScriptException(where + ": " + written + " refers to group " + index
                    + " but the rule's regex has " + groupCount + " group" + (groupCount == 1 ? "" : "s"));
        }
        return new Group(index);
    }
}
