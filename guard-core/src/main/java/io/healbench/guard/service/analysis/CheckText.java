package io.healbench.guard.service.analysis;

import java.util.Optional;

/**
 * The canonical text of what a declared check condition reads: {@code NAME}, {@code owner.attr}, or an item with a
 * constant key, {@code owner["key"]} / {@code owner[3]}. The policy may spell a key with either quote and any
 * spacing ({@code SETTINGS[ 'strict' ]}); the code's branch tests are spelt however the project spells them. Both
 * are brought to this one form, the same one healrt's {@code fmtrewrite.check_text} produces, so a check matches
 * the same reads in the static stage and at run time. A key with a quote or a backslash has no canonical form (it
 * would need escapes), and is refused in both.
 */
final class CheckText {

    private CheckText() {}

    /** The policy's text in canonical form; {@link AnalysisInputException} naming {@code where} if it has none. */
    static String ofPolicy(String text, String where) {
        return new Parser(text).parse().orElseThrow(() -> new AnalysisInputException(where + ": check '" + text
                + "' must be a name, a dotted attribute or an item with a constant str or int key "
                + "(no quotes or backslashes in the key), such as SETTINGS['strict']"));
    }

    /** The canonical text of an expression of a branch test, or null if it is none of the three forms. */
    static String of(PyNode e) {
        if (e.is("Name")) {
            return e.str("id");
        }
        if (e.is("Attribute")) {
            String owner = of(e.node("value"));
            return owner == null ? null : owner + "." + e.str("attr");
        }
        if (e.is("Subscript") && e.node("slice") != null && e.node("slice").is("Constant")) {
            String owner = of(e.node("value"));
            Object key = e.node("slice").raw("value");
            if (owner == null) {
                return null;
            }
            if (key instanceof String text && safeKey(text)) {
                return owner + "[\"" + text + "\"]";
            }
            if (key instanceof Number number && !(key instanceof Double) && !(key instanceof Float)) {
                return owner + "[" + number + "]";
            }
        }
        return null;
    }

    private static boolean safeKey(String key) {
        return key.indexOf('"') < 0 && key.indexOf('\'') < 0 && key.indexOf('\\') < 0;
    }

    /** A recursive-descent reader of {@code NAME ('.' NAME | '[' (STRING | INT) ']')*}, spaces allowed between. */
    private static final class Parser {
        private final String text;
        private int at;

        Parser(String text) {
            this.text = text == null ? "" : text;
        }

        Optional<String> parse() {
            StringBuilder canonical = new StringBuilder();
            String name = identifier();
            if (name == null) {
                return Optional.empty();
            }
            canonical.append(name);
            while (skipSpaces() < text.length()) {
                char c = text.charAt(at++);
                if (c == '.') {
                    skipSpaces();
                    String attr = identifier();
                    if (attr == null) {
                        return Optional.empty();
                    }
                    canonical.append('.').append(attr);
                } else if (c == '[') {
                    skipSpaces();
                    String key = key();
                    skipSpaces();
                    if (key == null || at >= text.length() || text.charAt(at++) != ']') {
                        return Optional.empty();
                    }
                    canonical.append('[').append(key).append(']');
                } else {
                    return Optional.empty();
                }
            }
            return Optional.of(canonical.toString());
        }

        private int skipSpaces() {
            while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
                at++;
            }
            return at;
        }

        private String identifier() {
            int start = at;
            if (at < text.length() && (Character.isLetter(text.charAt(at)) || text.charAt(at) == '_')) {
                at++;
                while (at < text.length() && (Character.isLetterOrDigit(text.charAt(at)) || text.charAt(at) == '_')) {
                    at++;
                }
            }
            return at == start ? null : text.substring(start, at);
        }

        /** A quoted string without quotes or backslashes inside, as {@code "key"}; or a decimal int, as written. */
        private String key() {
            if (at >= text.length()) {
                return null;
            }
            char quote = text.charAt(at);
            if (quote == '\'' || quote == '"') {
                int end = text.indexOf(quote, at + 1);
                if (end < 0) {
                    return null;
                }
                String key = text.substring(at + 1, end);
                at = end + 1;
                return safeKey(key) ? "\"" + key + "\"" : null;
            }
            int start = at;
            while (at < text.length() && Character.isDigit(text.charAt(at))) {
                at++;
            }
            String digits = text.substring(start, at);
            // Python refuses leading zeros (`S[01]` is a syntax error); so does this.
            return digits.isEmpty() || (digits.length() > 1 && digits.charAt(0) == '0') ? null : digits;
        }
    }
}
