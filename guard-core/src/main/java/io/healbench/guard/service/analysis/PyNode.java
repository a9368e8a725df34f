package io.healbench.guard.service.analysis;

import java.util.List;
import java.util.Map;

/**
 * One node of a module tree as healrt exports it (docs/healguard.md §2): the CPython {@code ast} class name, its
 * fields (nodes, lists, scalars; a missing field reads as None) and its source span. Nodes are compared by
 * identity: the analysis keys its maps on them.
 */
public final class PyNode {

    /** A constant JSON could not hold (bytes, complex, Ellipsis, inf/nan): its Python repr. */
    public record Repr(String text) {}

    private final String type;
    private final Map<String, Object> fields;
    private final int line;
    private final int col;
    private final int endLine;
    private final int endCol;

    PyNode(String type, Map<String, Object> fields, int line, int col, int endLine, int endCol) {
        this.type = type;
        this.fields = fields;
        this.line = line;
        this.col = col;
        this.endLine = endLine;
        this.endCol = endCol;
    }

    public String type() {
        return type;
    }

    public boolean is(String kind) {
        return type.equals(kind);
    }

    public boolean isAny(String... kinds) {
        for (String kind : kinds) {
            if (type.equals(kind)) {
                return true;
            }
        }
        return false;
    }

    /** A child node, or null when the field is missing, None or not a node. */
    public PyNode node(String field) {
        return fields.get(field) instanceof PyNode child ? child : null;
    }

    /** The nodes of a list field (None entries, as in a dict display's `**` keys, read as null). */
    @SuppressWarnings("unchecked")
    public List<PyNode> nodes(String field) {
        Object value = fields.get(field);
        if (!(value instanceof List<?> list)) {
            return List.of();
        }
        return (List<PyNode>) list;
    }

    public String str(String field) {
        return fields.get(field) instanceof String text ? text : null;
    }

    public int integer(String field, int fallback) {
        return fields.get(field) instanceof Number number ? number.intValue() : fallback;
    }

    /** A raw field value: String, Long/BigInteger/Double, Boolean, {@link Repr}, a node, a list, or null. */
    public Object raw(String field) {
        return fields.get(field);
    }

    /** All fields, read-only (for walkers that visit every child). */
    public Map<String, Object> fieldsView() {
        return java.util.Collections.unmodifiableMap(fields);
    }

    public boolean has(String field) {
        return fields.get(field) != null;
    }

    public int line() {
        return line;
    }

    public int col() {
        return col;
    }

    public int endLine() {
        return endLine;
    }

    public int endCol() {
        return endCol;
    }

    /** True when the node's lines include {@code lineNumber}. */
    public boolean spansLine(int lineNumber) {
        return line <= lineNumber && lineNumber <= Math.max(line, endLine);
    }

    @Override
    public String toString() {
        return type + "@" + line + ":" + col;
    }
}
