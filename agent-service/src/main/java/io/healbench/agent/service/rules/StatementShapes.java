package io.healbench.agent.service.rules;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Recognizes the few single-line statement shapes the rules rewrite, from the statement's source
 * text. Anything it cannot read with certainty yields empty, and the rules fall back to a plain
 * default instead of guessing.
 */
final class StatementShapes {

    /** {@code T = M[K]} where M is a name or dotted attribute path. */
    record SubscriptRead(String target, String mapping, String key) {
        /** The mapping's root name, the local it is reached from. */
        String root() {
            int dot = mapping.indexOf('.');
            return dot < 0 ? mapping : mapping.substring(0, dot);
        }
    }

    /** {@code T = A op B} with op one of {@code /}, {@code //}, {@code %}. */
    record Division(String target, String dividend, String operator, String divisor) {
    }

    private static final Pattern SUBSCRIPT_READ =
            Pattern.compile("^(\\w+)\\s*=\\s*(\\w+(?:\\.\\w+)*)\\[(.+)\\]\\s*$");
    private static final String OPERAND = "\\w+(?:\\.\\w+)*|\\([^()]*\\)";
    private static final Pattern DIVISION = Pattern.compile(
            "^(\\w+)\\s*=\\s*(" + OPERAND + ")\\s*(//|/|%)\\s*(" + OPERAND + ")\\s*$");

    private StatementShapes() {
    }

    static Optional<SubscriptRead> subscriptRead(String source) {
        Matcher m = SUBSCRIPT_READ.matcher(source.strip());
        if (!m.matches() || !isSingleSubscriptKey(m.group(3))) {
            return Optional.empty();
        }
        return Optional.of(new SubscriptRead(m.group(1), m.group(2), m.group(3).strip()));
    }

    static Optional<Division> division(String source) {
        Matcher m = DIVISION.matcher(source.strip());
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(new Division(m.group(1), m.group(2), m.group(3), m.group(4)));
    }

    /** True when the key has a top-level comma, i.e. it is a tuple key ({@code d[a, b]}). */
    static boolean isTupleKey(String key) {
        return topLevelIndexOf(key, ',') >= 0;
    }

    /**
     * The greedy regex may have swallowed {@code a][b} of a chained subscript, or a slice; accept only
     * one balanced key expression without a top-level colon.
     */
    private static boolean isSingleSubscriptKey(String key) {
        return !key.isBlank() && balanced(key) && topLevelIndexOf(key, ':') < 0;
    }

    private static boolean balanced(String expr) {
        return scan(expr, '\0') == -1;
    }

    private static int topLevelIndexOf(String expr, char wanted) {
        return scan(expr, wanted);
    }

    /**
     * Walks the expression skipping string literals. Returns the index of the first top-level
     * {@code wanted} character; -1 when the brackets are balanced and none was found; -2 when the
     * brackets are unbalanced or a string is unterminated.
     */
    private static int scan(String expr, char wanted) {
        int depth = 0;
        char quote = 0;
        for (int i = 0; i < expr.length(); i++) {
            char c = expr.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
                continue;
            }
            switch (c) {
                case '\'', '"' -> quote = c;
                case '(', '[', '{' -> depth++;
                case ')', ']', '}' -> {
                    if (--depth < 0) {
                        return -2;
                    }
                }
                default -> {
                    if (c == wanted && depth == 0) {
                        return i;
                    }
                }
            }
        }
        return depth == 0 && quote == 0 ? -1 : -2;
    }
}
