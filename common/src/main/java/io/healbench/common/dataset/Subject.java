package io.healbench.common.dataset;

/**
 * Where an instance's code comes from: {@code kind:name@version}, or {@code cpython-stdlib@version}.
 */
public record Subject(String kind, String name, String version) {

    public static final String CPYTHON_STDLIB = "cpython-stdlib";

    /** Parses the {@code subject} field; {@code field} names the field for the error message. */
    public static Subject parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("is empty");
        }
        int at = text.lastIndexOf('@');
        if (at <= 0 || at == text.length() - 1) {
            throw new IllegalArgumentException("must look like kind:name@version or cpython-stdlib@version, got '" + text + "'");
        }
        String head = text.substring(0, at);
        String version = text.substring(at + 1);
        if (head.equals(CPYTHON_STDLIB)) {
            return new Subject(CPYTHON_STDLIB, "cpython", version);
        }
        int colon = head.indexOf(':');
        if (colon <= 0 || colon == head.length() - 1) {
            throw new IllegalArgumentException("must look like kind:name@version, got '" + text + "'");
        }
        return new Subject(head.substring(0, colon), head.substring(colon + 1), version);
    }

    @Override
    public String toString() {
        return kind.equals(CPYTHON_STDLIB) ? kind + "@" + version : kind + ":" + name + "@" + version;
    }
}
