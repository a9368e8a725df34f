package io.healbench.agent.service.rules;

import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
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

    /** {@code TARGET = VALUE}, split at the statement's one top-level assignment {@code =}. */
    record Assignment(String target, String value) {
    }

    /**
     * A load {@code M[K]} of a plain name M inside an expression; {@code arithmeticOperand} when it is
     * an operand of {@code + - * / %} (binary or unary).
     */
    record SubscriptLoad(String mapping, String key, boolean arithmeticOperand) {
    }

    /** Words that may precede a {@code [} without being a subscripted name. */
    private static final Set<String> KEYWORDS = Set.of("and", "as", "assert", "await", "del", "elif", "else",
            "for", "from", "if", "import", "in", "is", "lambda", "not", "or", "return", "while", "with", "yield",
            "None", "True", "False");
    private static final Pattern STRING_PREFIX = Pattern.compile("(?i)[rbuf]{1,2}");
    private static final Pattern NAME = Pattern.compile("[A-Za-z_]\\w*");
    private static final Pattern FLOAT_LITERAL = Pattern.compile("(?<![\\w.])(\\d+\\.\\d*|\\.\\d+)(?![\\w.])");
    private static final String ARITHMETIC = "+-*/%";

    private StatementShapes() {
    }

    /** Splits a single-target assignment; empty for chained assignments or when no top-level {@code =} exists. */
    static Optional<Assignment> assignment(String source) {
        String s = source.strip();
        int found = -1;
        int depth = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\'' || c == '"') {
                i = stringEnd(s, i) - 1;
                continue;
            }
            switch (c) {
                case '(', '[', '{' -> depth++;
                case ')', ']', '}' -> depth--;
                case '=' -> {
                    char before = i > 0 ? s.charAt(i - 1) : ' ';
                    char after = i + 1 < s.length() ? s.charAt(i + 1) : ' ';
                    if (depth == 0 && after != '=' && "=!<>:+-*/%&|^@~".indexOf(before) < 0) {
                        if (found >= 0) {
                            return Optional.empty();
                        }
                        found = i;
                    } else if (after == '=') {
                        i++;
                    }
                }
                default -> {
                }
            }
        }
        if (found <= 0 || found == s.length() - 1 || depth != 0) {
            return Optional.empty();
        }
        return Optional.of(new Assignment(s.substring(0, found).strip(), s.substring(found + 1).strip()));
    }

    /**
     * Rewrites every load {@code M[K]} of a plain name in {@code expr} for which {@code defaultFor} gives a
     * default D into {@code M.get(K, D)} (a tuple key keeps its tuple; loads nested in the key are
     * rewritten too). Loads used as objects ({@code M[K][...]}, {@code M[K](...)}, {@code M[K].attr}) and
     * slices are left alone. Empty when nothing was rewritten.
     */
    static Optional<String> rewriteLoads(String expr, Function<SubscriptLoad, Optional<String>> defaultFor) {
        StringBuilder out = new StringBuilder();
        boolean changed = false;
        int n = expr.length();
        int i = 0;
        while (i < n) {
            char c = expr.charAt(i);
            if (c == '\'' || c == '"') {
                int end = stringEnd(expr, i);
                out.append(expr, i, end);
                i = end;
                continue;
            }
            boolean nameStart = Character.isLetter(c) || c == '_';
            if (!nameStart || (i > 0 && (isNamePart(expr.charAt(i - 1)) || expr.charAt(i - 1) == '.'))) {
                out.append(c);
                i++;
                continue;
            }
            int j = i;
            while (j < n && isNamePart(expr.charAt(j))) {
                j++;
            }
            String name = expr.substring(i, j);
            if (j < n && (expr.charAt(j) == '\'' || expr.charAt(j) == '"') && STRING_PREFIX.matcher(name).matches()) {
                int end = stringEnd(expr, j);
                out.append(expr, i, end);
                i = end;
                continue;
            }
            if (j < n && expr.charAt(j) == '[' && !KEYWORDS.contains(name)) {
                int close = closingBracket(expr, j);
                if (close > 0) {
                    String key = expr.substring(j + 1, close).strip();
                    char next = nextNonSpace(expr, close + 1);
                    boolean usedAsObject = next == '[' || next == '(' || next == '.';
                    if (!usedAsObject && isSingleSubscriptKey(key)) {
                        boolean arithmetic = ARITHMETIC.indexOf(next) >= 0 || precededByArithmetic(expr, i);
                        Optional<String> fallback = defaultFor.apply(new SubscriptLoad(name, key, arithmetic));
                        if (fallback.isPresent()) {
                            String innerKey = rewriteLoads(key, defaultFor).orElse(key);
                            out.append(name).append(".get(")
                                    .append(isTupleKey(innerKey) ? "(" + innerKey + ")" : innerKey)
                                    .append(", ").append(fallback.get()).append(")");
                            i = close + 1;
                            changed = true;
                            continue;
                        }
                    }
                }
            }
            out.append(name);
            i = j;
        }
        return changed ? Optional.of(out.toString()) : Optional.empty();
    }

    /** True when the text is one plain name (an identifier). */
    static boolean isName(String text) {
        return NAME.matcher(text).matches();
    }

    /** True when the expression holds a float literal ({@code 2.0}, {@code 1.}, {@code .5}) outside a name. */
    static boolean hasFloatLiteral(String expr) {
        return FLOAT_LITERAL.matcher(expr).find();
    }

    /** Plain names read by an expression or statement (not attributes, not inside string literals). */
    static Set<String> names(String expr) {
        Set<String> names = new java.util.LinkedHashSet<>();
        int n = expr.length();
        int i = 0;
        while (i < n) {
            char c = expr.charAt(i);
            if (c == '\'' || c == '"') {
                i = stringEnd(expr, i);
                continue;
            }
            if ((Character.isLetter(c) || c == '_') && (i == 0 || (!isNamePart(expr.charAt(i - 1))
                    && expr.charAt(i - 1) != '.'))) {
                int j = i;
                while (j < n && isNamePart(expr.charAt(j))) {
                    j++;
                }
                String name = expr.substring(i, j);
                if (!(j < n && (expr.charAt(j) == '\'' || expr.charAt(j) == '"')
                        && STRING_PREFIX.matcher(name).matches()) && !KEYWORDS.contains(name)) {
                    names.add(name);
                }
                i = j;
                continue;
            }
            i++;
        }
        return names;
    }

    /** An operand of {@code + - * / %} on its left (a {@code *} or {@code **} after {@code ( , [ {} unpacks instead). */
    private static boolean precededByArithmetic(String expr, int start) {
        int p = start - 1;
        while (p >= 0 && Character.isWhitespace(expr.charAt(p))) {
            p--;
        }
        if (p < 0 || ARITHMETIC.indexOf(expr.charAt(p)) < 0) {
            return false;
        }
        if (expr.charAt(p) != '*') {
            return true;
        }
        while (p >= 0 && expr.charAt(p) == '*') {
            p--;
        }
        while (p >= 0 && Character.isWhitespace(expr.charAt(p))) {
            p--;
        }
        return p >= 0 && "([{,".indexOf(expr.charAt(p)) < 0;
    }

    private static boolean isNamePart(char c) {
        return Character.isLetterOrDigit(c) || c == '_';
    }

    private static char nextNonSpace(String expr, int from) {
        for (int k = from; k < expr.length(); k++) {
            if (!Character.isWhitespace(expr.charAt(k))) {
                return expr.charAt(k);
            }
        }
        return '\0';
    }

    /** Index of the {@code ]} closing the {@code [} at {@code open}, or -1. */
    private static int closingBracket(String expr, int open) {
        int depth = 0;
        for (int k = open; k < expr.length(); k++) {
            char c = expr.charAt(k);
            if (c == '\'' || c == '"') {
                k = stringEnd(expr, k) - 1;
                continue;
            }
            if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                if (--depth == 0) {
                    return c == ']' ? k : -1;
                }
            }
        }
        return -1;
    }

    /** The index just past the string literal opening at {@code start} (single or triple quoted). */
    static int stringEnd(String expr, int start) {
        char q = expr.charAt(start);
        boolean triple = expr.startsWith(String.valueOf(q).repeat(3), start);
        int k = start + (triple ? 3 : 1);
        while (k < expr.length()) {
            char c = expr.charAt(k);
            if (c == '\\') {
                k += 2;
                continue;
            }
            if (c == q && (!triple || expr.startsWith(String.valueOf(q).repeat(3), k))) {
                return k + (triple ? 3 : 1);
            }
            k++;
        }
        return expr.length();
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

    static boolean isBalanced(String expr) {
        return balanced(expr);
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
