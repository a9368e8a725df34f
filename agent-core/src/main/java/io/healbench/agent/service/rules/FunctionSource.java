package io.healbench.agent.service.rules;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the few facts the rules take from the source of the crashing function: its parameters, the
 * expressions of its single-line {@code return} statements, and the values it assigns to a name.
 * Text-based and conservative: what it cannot read with certainty is left out.
 */
final class FunctionSource {

    private static final Pattern DEF = Pattern.compile("(?m)^[ \\t]*(?:async\\s+)?def\\s+\\w+\\s*\\(");
    private static final Pattern RETURN = Pattern.compile("^\\s*return(?:\\s+(.*?))?\\s*$");
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_]\\w*");
    private static final Pattern YIELD = Pattern.compile("(?<![\\w.])yield(?!\\w)");

    private FunctionSource() {
    }

    /** The parameter names of the (first) {@code def} of the source, in order; empty when unreadable. */
    static List<String> parameters(String source) {
        Matcher def = DEF.matcher(source);
        if (!def.find()) {
            return List.of();
        }
        int open = def.end() - 1;
        int close = closingParen(source, open);
        if (close < 0) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        for (String part : splitTopLevel(source.substring(open + 1, close), ',')) {
            String p = part.strip().replaceFirst("^\\*{1,2}", "");
            Matcher name = IDENTIFIER.matcher(p);
            if (name.lookingAt()) {
                names.add(name.group());
            }
        }
        return names;
    }

    /** True when the function is a generator (its returns carry no value to a caller). */
    static boolean isGenerator(String source) {
        return YIELD.matcher(withoutStrings(source)).find();
    }

    /**
     * The expressions of the function's one-line {@code return} statements in source order
     * ({@code None} for a bare {@code return}); lines inside triple-quoted strings are ignored, and so
     * are returns continued on the next line.
     */
    static List<String> returnExpressions(String source) {
        List<String> out = new ArrayList<>();
        boolean inDocstring = false;
        for (String line : source.split("\n", -1)) {
            int quotes = count(line, "\"\"\"") + count(line, "'''");
            if (inDocstring || quotes > 0) {
                if (quotes % 2 == 1) {
                    inDocstring = !inDocstring;
                }
                continue;
            }
            Matcher m = RETURN.matcher(stripComment(line));
            if (!m.matches()) {
                continue;
            }
            String expr = m.group(1) == null ? "None" : m.group(1).strip();
            if (!expr.endsWith("\\") && StatementShapes.isBalanced(expr)) {
                out.add(expr);
            }
        }
        return out;
    }

    /** The right-hand sides of the plain assignments {@code name = ...} in the source. */
    static List<String> assignedValues(String source, String name) {
        Pattern assign = Pattern.compile("(?m)^\\s*" + Pattern.quote(name) + "\\s*=(?!=)\\s*(.+?)\\s*$");
        Matcher m = assign.matcher(source);
        List<String> out = new ArrayList<>();
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    /** Splits at top-level occurrences of {@code separator} (outside brackets and strings). */
    static List<String> splitTopLevel(String expr, char separator) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        int from = 0;
        for (int i = 0; i < expr.length(); i++) {
            char c = expr.charAt(i);
            if (c == '\'' || c == '"') {
                i = StatementShapes.stringEnd(expr, i) - 1;
            } else if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                depth--;
            } else if (c == separator && depth == 0) {
                parts.add(expr.substring(from, i));
                from = i + 1;
            }
        }
        parts.add(expr.substring(from));
        return parts;
    }

    private static int closingParen(String source, int open) {
        int depth = 0;
        for (int i = open; i < source.length(); i++) {
            char c = source.charAt(i);
            if (c == '\'' || c == '"') {
                i = StatementShapes.stringEnd(source, i) - 1;
            } else if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if ((c == ')' || c == ']' || c == '}') && --depth == 0) {
                return c == ')' ? i : -1;
            }
        }
        return -1;
    }

    private static String stripComment(String line) {
        int hash = line.indexOf('#');
        return hash >= 0 && line.indexOf('\'') < 0 && line.indexOf('"') < 0 ? line.substring(0, hash) : line;
    }

    private static String withoutStrings(String source) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < source.length(); i++) {
            char c = source.charAt(i);
            if (c == '\'' || c == '"') {
                i = StatementShapes.stringEnd(source, i) - 1;
                out.append("''");
            } else if (c == '#') {
                while (i < source.length() && source.charAt(i) != '\n') {
                    i++;
                }
                out.append('\n');
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static int count(String text, String needle) {
        int n = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length())) {
            n++;
        }
        return n;
    }
}
