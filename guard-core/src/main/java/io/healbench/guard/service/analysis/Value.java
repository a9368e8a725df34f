package io.healbench.guard.service.analysis;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The abstract value of an expression or location: the heal sources it carries itself, and those of its
 * attributes and items (field sensitivity), plus what is known of its type and of the symbol it names. Immutable.
 *
 * <p>Field keys: {@code .name} an attribute, {@code .*} an attribute with a computed name, {@code [s:k]} /
 * {@code [i:3]} / {@code [o:True]} an item with a constant key, {@code [*]} an item with any other key,
 * {@code [keys]} the keys of a mapping. A field that is absent carries nothing. A value's own taint covers its
 * fields too: every part of an object a heal produced came from the heal.
 */
final class Value {

    static final String ANY_ITEM = "[*]";
    static final String ANY_ATTR = ".*";
    static final String KEYS = "[keys]";
    /** Trees deeper than this collapse into their node (cyclic structures built in loops stay finite). */
    private static final int MAX_DEPTH = 6;

    static final Value CLEAN = new Value(Taint.NONE, Map.of(), null, null);

    final Taint taint;
    final Map<String, Value> fields;
    /** A qualified class name ("pathlib.Path", "pkg.mod.Config", "str"), or null when unknown. */
    final String type;
    /** The module, class or function the value is (qualified name), or null. */
    final String symbol;
    private String signature;

    private Value(Taint taint, Map<String, Value> fields, String type, String symbol) {
        this.taint = taint;
        this.fields = fields;
        this.type = type;
        this.symbol = symbol;
    }

    static Value of(Taint taint) {
        return taint.isEmpty() ? CLEAN : new Value(taint, Map.of(), null, null);
    }

    static Value typed(String type, Taint taint) {
        return new Value(taint, Map.of(), type, null);
    }

    static Value symbol(String symbol) {
        return new Value(Taint.NONE, Map.of(), null, symbol);
    }

    Value withType(String newType) {
        return Objects.equals(type, newType) ? this : new Value(taint, fields, newType, symbol);
    }

    Value withTaint(Taint extra) {
        Taint joined = taint.union(extra);
        return joined == taint ? this : new Value(joined, fields, type, symbol);
    }

    /** Carries nothing and knows nothing: equivalent to {@link #CLEAN}. */
    boolean isTrivial() {
        return this == CLEAN || taint.isEmpty() && fields.isEmpty() && type == null && symbol == null;
    }

    boolean isClean() {
        return deep().isEmpty();
    }

    /** The sources anywhere in the value: itself and all its fields. */
    Taint deep() {
        Taint all = taint;
        for (Value field : fields.values()) {
            all = all.union(field.deep());
        }
        return all;
    }

    /** A new value derived from all of this one (an operator's or a call's result). */
    Value flat() {
        return of(deep());
    }

    Value attr(String name) {
        return part("." + name, ANY_ATTR);
    }

    /** An item read with a constant key ({@code [s:k]}...) or with any key ({@link #ANY_ITEM}). */
    Value item(String key) {
        if (key.equals(ANY_ITEM)) {
            Value joined = CLEAN;
            for (Map.Entry<String, Value> field : fields.entrySet()) {
                if (field.getKey().startsWith("[") && !field.getKey().equals(KEYS)) {
                    joined = joined.join(field.getValue());
                }
            }
            return joined.withTaint(taint);
        }
        return part(key, ANY_ITEM);
    }

    private Value part(String key, String wildcard) {
        Value exact = fields.getOrDefault(key, CLEAN);
        Value any = fields.get(wildcard);
        Value found = any == null ? exact : exact.join(any);
        return found.withTaint(taint);
    }

    /** What iterating over the value yields: keys for a mapping, else any item. */
    Value element() {
        if ("dict".equals(type)) {
            return fields.getOrDefault(KEYS, CLEAN).withTaint(taint);
        }
        Value items = item(ANY_ITEM);
        Value keys = fields.get(KEYS);
        return keys == null ? items : items.join(keys);
    }

    /** This value with one field replaced (a strong update). */
    Value with(String key, Value value) {
        Map<String, Value> updated = new TreeMap<>(fields);
        if (value.isTrivial()) {
            updated.remove(key);
        } else {
            updated.put(key, value);
        }
        return new Value(taint, Collections.unmodifiableMap(updated), type, symbol);
    }

    /** This value with one field joined with another value (a weak update). */
    Value withJoined(String key, Value value) {
        Value existing = fields.get(key);
        return with(key, existing == null ? value : existing.join(value));
    }

    Value join(Value other) {
        if (other == this) {
            return this;
        }
        if (other.isTrivial()) {
            return joinWithClean();
        }
        if (isTrivial()) {
            return other.joinWithClean();
        }
        Map<String, Value> merged = new TreeMap<>(fields);
        other.fields.forEach((key, value) -> merged.merge(key, value, Value::join));
        return new Value(taint.union(other.taint), Collections.unmodifiableMap(merged),
                Objects.equals(type, other.type) ? type : null, Objects.equals(symbol, other.symbol) ? symbol : null)
                .capped(MAX_DEPTH);
    }

    /** Joined with an unknown clean value: the taint stays, the type and symbol are no longer certain. */
    private Value joinWithClean() {
        return type == null && symbol == null ? this : new Value(taint, fields, null, null);
    }

    /** Every flow in the value extended by one step. */
    Value then(String file, int line, int col, String description) {
        if (isClean()) {
            return this;
        }
        Map<String, Value> extended = new TreeMap<>();
        fields.forEach((key, value) -> extended.put(key, value.then(file, line, col, description)));
        return new Value(taint.then(file, line, col, description), Collections.unmodifiableMap(extended), type, symbol);
    }

    Value capped(int depth) {
        if (fields.isEmpty()) {
            return this;
        }
        if (depth <= 0) {
            return new Value(deep(), Map.of(), type, symbol);
        }
        Map<String, Value> capped = new TreeMap<>();
        boolean changed = false;
        for (Map.Entry<String, Value> field : fields.entrySet()) {
            Value inner = field.getValue().capped(depth - 1);
            changed |= inner != field.getValue();
            capped.put(field.getKey(), inner);
        }
        return changed ? new Value(taint, Collections.unmodifiableMap(capped), type, symbol) : this;
    }

    /** Structural identity for fixpoints and memo keys: sources, fields, type and symbol; not the witnesses. */
    String signature() {
        if (signature == null) {
            StringBuilder text = new StringBuilder();
            text.append(taint.sources());
            if (type != null) {
                text.append(':').append(type);
            }
            if (symbol != null) {
                text.append('=').append(symbol);
            }
            if (!fields.isEmpty()) {
                text.append('{');
                fields.forEach((key, value) -> text.append(key).append('>').append(value.signature()).append(','));
                text.append('}');
            }
            signature = text.toString();
        }
        return signature;
    }

    boolean same(Value other) {
        return this == other || signature().equals(other.signature());
    }

    @Override
    public String toString() {
        return signature();
    }
}
