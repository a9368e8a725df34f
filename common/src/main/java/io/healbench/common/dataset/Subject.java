package io.healbench.common.dataset;

/**
 * Where an instance's code comes from (docs/dataset.md §2): {@code cpython-stdlib@X.Y.Z},
 * {@code debian-source:<pkg>@<version>}, {@code debian-package:<binary>@<version>},
 * {@code git:<url>@<commit>} or {@code local:<path>} (which has no version).
 * Fetching a subject is the dataset tooling's job ({@code python3 -m hbdata}); this is only its name.
 */
public record Subject(String kind, String name, String version) {

    public static final String CPYTHON_STDLIB = "cpython-stdlib";
    public static final String LOCAL = "local";

    /** Parses the {@code subject} field; the message of the exception says what is wrong. */
    public static Subject parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("is empty");
        }
        if (text.startsWith(CPYTHON_STDLIB + "@")) {
            return new Subject(CPYTHON_STDLIB, CPYTHON_STDLIB, text.substring(CPYTHON_STDLIB.length() + 1));
        }
        int colon = text.indexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("must look like kind:name@version, cpython-stdlib@X.Y.Z or local:<path>, got '" + text + "'");
        }
        String kind = text.substring(0, colon);
        String rest = text.substring(colon + 1);
        if (kind.equals(LOCAL)) {
            return new Subject(LOCAL, rest, null);
        }
        // A git URL may contain '@' (git@host:repo); the version never does, so split at the last one.
        int at = rest.lastIndexOf('@');
        if (at <= 0 || at == rest.length() - 1) {
            throw new IllegalArgumentException("must end in @version, got '" + text + "'");
        }
        return new Subject(kind, rest.substring(0, at), rest.substring(at + 1));
    }

    /**
     * The code base when no {@code dataset/subjects/*.yaml} declares one: the stdlib is one code base at
     * every version, any other subject is the last path segment of its name ({@code toolz},
     * {@code https://host/x/repo.git} gives {@code repo}). hbdata's {@code codebase_of} derives it the same way.
     */
    public String derivedCodebase() {
        if (kind.equals(CPYTHON_STDLIB)) {
            return CPYTHON_STDLIB;
        }
        String trimmed = name.replaceAll("/+$", "");
        String last = trimmed.substring(trimmed.lastIndexOf('/') + 1);
        if (last.endsWith(".git")) {
            last = last.substring(0, last.length() - 4);
        }
        return last.isEmpty() ? toString() : last;
    }

    @Override
    public String toString() {
        if (kind.equals(CPYTHON_STDLIB)) {
            return kind + "@" + version;
        }
        return version == null ? kind + ":" + name : kind + ":" + name + "@" + version;
    }
}
