package io.healbench.guard.service.gate;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds the replacement fields of an f-string token, so that the gate can parse each field's
 * expression as HealCore: an f-string must not carry code past the gate.
 *
 * <p>Follows CPython's (3.11) reading: {@code {{}} and {@code }}} are literal braces, a field's
 * expression ends at a top-level {@code !} (conversion, not {@code !=}), {@code :} (format spec, which
 * may hold nested fields) or {@code }}; brackets and string literals inside the expression are
 * skipped over; {@code \N{...}} in a non-raw f-string is a named escape, not a field. Anything this
 * scanner cannot read with certainty (unbalanced brackets, backslashes or comments in an
 * expression, an empty expression, a stray brace) makes the f-string malformed, which the gate
 * rejects.
 */
final class FStringFields {

    /** One field expression: its text and its index in the token text. */
    record Field(int start, String expression) {
    }

    /** The fields found, and the index of the first malformed spot in the token text (or -1). */
    record Scan(List<Field> fields, int malformedAt) {
    }

    private final String text;
    private final boolean raw;
    private final int end;
    private final List<Field> fields = new ArrayList<>();

    private FStringFields(String text, boolean raw, int end) {
        this.text = text;
        this.raw = raw;
        this.end = end;
    }

    static Scan scan(String token) {
        int prefixEnd = 0;
        while (prefixEnd < token.length() && Character.isLetter(token.charAt(prefixEnd))) {
            prefixEnd++;
        }
        boolean raw = token.substring(0, prefixEnd).toLowerCase().contains("r");
        int quoteLength = token.startsWith("'''", prefixEnd) || token.startsWith("\"\"\"", prefixEnd) ? 3 : 1;
        FStringFields scanner = new FStringFields(token, raw, token.length() - quoteLength);
        int malformedAt = -1;
        try {
            scanner.literal(prefixEnd + quoteLength, false);
        } catch (Malformed m) {
            malformedAt = m.at;
        }
        return new Scan(List.copyOf(scanner.fields), malformedAt);
    }

    /** Literal text (or a format spec); returns where it stops: the end, or a spec's closing brace. */
    private int literal(int from, boolean spec) {
        int i = from;
        while (i < end) {
            char c = text.charAt(i);
            if (c == '\\' && !raw) {
                i = text.startsWith("N{", i + 1) ? closingBrace(i) + 1 : i + 2;
            } else if (c == '{') {
                i = !spec && at(i + 1) == '{' ? i + 2 : field(i + 1);
            } else if (c == '}') {
                if (spec) {
                    return i;
                }
                if (at(i + 1) != '}') {
                    throw new Malformed(i);
                }
                i += 2;
            } else {
                i++;
            }
        }
        if (spec) {
            throw new Malformed(from);
        }
        return end;
    }

    /** A field whose expression starts at from; returns the index after its closing brace. */
    private int field(int from) {
        int depth = 0;
        int i = from;
        while (i < end) {
            char c = text.charAt(i);
            switch (c) {
                case '\'', '"' -> {
                    i = afterStringLiteral(i);
                    continue;
                }
                case '(', '[', '{' -> depth++;
                case ')', ']' -> {
                    if (--depth < 0) {
                        throw new Malformed(i);
                    }
                }
                case '}' -> {
                    if (depth == 0) {
                        record(from, i);
                        return i + 1;
                    }
                    depth--;
                }
                case '!' -> {
                    if (depth == 0 && at(i + 1) != '=') {
                        record(from, i);
                        return conversion(i + 1);
                    }
                }
                case ':' -> {
                    if (depth == 0) {
                        record(from, i);
                        return literal(i + 1, true) + 1;
                    }
                }
                case '\\', '#' -> throw new Malformed(i);
                default -> {
                    // part of the expression
                }
            }
            i++;
        }
        throw new Malformed(from);
    }

    /** After '!': one of r, s, a, then ':' spec or '}'. */
    private int conversion(int from) {
        char kind = at(from);
        if (kind != 'r' && kind != 's' && kind != 'a') {
            throw new Malformed(from);
        }
        char next = at(from + 1);
        if (next == '}') {
            return from + 2;
        }
        if (next == ':') {
            return literal(from + 2, true) + 1;
        }
        throw new Malformed(from + 1);
    }

    private void record(int from, int to) {
        String expression = text.substring(from, to);
        String trimmed = expression.stripTrailing();
        // the self-documenting form f"{x=}" is the expression x
        if (trimmed.endsWith("=") && trimmed.length() > 1 && "=!<>".indexOf(trimmed.charAt(trimmed.length() - 2)) < 0) {
            expression = trimmed.substring(0, trimmed.length() - 1);
        }
        if (expression.isBlank()) {
            throw new Malformed(from);
        }
        fields.add(new Field(from, expression));
    }

    private int afterStringLiteral(int quoteAt) {
        char quote = text.charAt(quoteAt);
        String delimiter = text.startsWith(String.valueOf(quote).repeat(3), quoteAt) ? String.valueOf(quote).repeat(3) : String.valueOf(quote);
        int i = quoteAt + delimiter.length();
        while (i < end) {
            if (text.charAt(i) == '\\') {
                throw new Malformed(i);
            }
            if (text.startsWith(delimiter, i)) {
                return i + delimiter.length();
            }
            i++;
        }
        throw new Malformed(quoteAt);
    }

    private int closingBrace(int from) {
        int close = text.indexOf('}', from);
        if (close < 0 || close >= end) {
            throw new Malformed(from);
        }
        return close;
    }

    private char at(int index) {
        return index < end ? text.charAt(index) : '\0';
    }

    private static final class Malformed extends RuntimeException {
        private final int at;

        Malformed(int at) {
            super(null, null, false, false);
            this.at = at;
        }
    }
}
