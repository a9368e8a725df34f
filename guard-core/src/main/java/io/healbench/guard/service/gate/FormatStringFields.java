package io.healbench.guard.service.gate;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The attribute names a {@code str.format} template walks: {@code '{0.a.b[k]:{1.c}}'} walks a, b and c. Python's own
 * parser of replacement fields ({@code string.Formatter().parse}) is the reference: a field name runs to the first
 * {@code !} or {@code :} outside brackets, attributes follow dots, bracketed parts are keys, and a format spec may nest
 * fields of its own. healrt's re-check asks Python itself; the gate must agree with it on every literal.
 */
final class FormatStringFields {

    private FormatStringFields() {}

    /** The attributes, or empty when the template is malformed (str.format raises on it; nothing is walked). */
    static Optional<List<String>> attributes(String template) {
        List<String> found = new ArrayList<>();
        return scan(template, found) ? Optional.of(found) : Optional.empty();
    }

    private static boolean scan(String template, List<String> found) {
        int i = 0;
        while (i < template.length()) {
            char c = template.charAt(i);
            if (c == '{' && i + 1 < template.length() && template.charAt(i + 1) == '{') {
                i += 2;
            } else if (c == '{') {
                int end = matchingBrace(template, i);
                if (end < 0 || !field(template.substring(i + 1, end), found)) {
                    return false;
                }
                i = end + 1;
            } else {
                i++;
            }
        }
        return true;
    }

    private static int matchingBrace(String template, int open) {
        int depth = 0;
        for (int i = open; i < template.length(); i++) {
            char c = template.charAt(i);
            if (c == '[' && depth == 1) {
                int close = template.indexOf(']', i);
                if (close < 0) {
                    return -1;
                }
                i = close;
            } else if (c == '{') {
                depth++;
            } else if (c == '}' && --depth == 0) {
                return i;
            }
        }
        return -1;
    }

    private static boolean field(String field, List<String> found) {
        int end = 0;
        while (end < field.length() && field.charAt(end) != '!' && field.charAt(end) != ':') {
            if (field.charAt(end) == '[') {
                end = field.indexOf(']', end);
                if (end < 0) {
                    return false;
                }
            }
            end++;
        }
        String name = field.substring(0, end).replaceAll("\\[[^\\]]*\\]", "");
        String[] parts = name.split("\\.", -1);
        for (int k = 1; k < parts.length; k++) {
            found.add(parts[k]);
        }
        int colon = field.indexOf(':', end);
        return colon < 0 || scan(field.substring(colon + 1), found);
    }

    /**
     * The value of a (non-raw) str literal's body with its escapes decoded as Python decodes them, or empty for a
     * malformed escape (the caller then refuses: a template that cannot be read cannot be cleared).
     */
    static Optional<String> decodeEscapes(String body) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (++i >= body.length()) {
                return Optional.empty();
            }
            char e = body.charAt(i);
            switch (e) {
                case '\n' -> { }
                case '\\', '\'', '"' -> out.append(e);
                case 'a' -> out.append('\u0007');
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'v' -> out.append('\u000b');
                case 'x', 'u', 'U' -> {
                    int digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
                    try {
                        out.appendCodePoint(Integer.parseInt(body.substring(i + 1, i + 1 + digits), 16));
                    } catch (RuntimeException ex) { // too few digits, not hex, or beyond Unicode
                        return Optional.empty();
                    }
                    i += digits;
                }
                case 'N' -> {
                    int close = body.indexOf('}', i);
                    if (i + 1 >= body.length() || body.charAt(i + 1) != '{' || close < 0) {
                        return Optional.empty();
                    }
                    try {
                        out.appendCodePoint(Character.codePointOf(body.substring(i + 2, close)));
                    } catch (IllegalArgumentException ex) {
                        return Optional.empty();
                    }
                    i = close;
                }
                default -> {
                    if (e >= '0' && e <= '7') {
                        int end = i;
                        while (end < body.length() && end < i + 3 && body.charAt(end) >= '0' && body.charAt(end) <= '7') {
                            end++;
                        }
                        out.appendCodePoint(Integer.parseInt(body.substring(i, end), 8));
                        i = end - 1;
                    } else {
                        out.append('\\').append(e); // Python keeps an unknown escape as it stands
                    }
                }
            }
        }
        return Optional.of(out.toString());
    }
}
