package io.healbench.guard.service.analysis;

import java.util.List;

/** Reads and writes of a value's sub-tree along field keys. */
final class Locations {

    private Locations() {}

    /** The value at {@code keys} below {@code root}, as a read sees it (parents' taint included). */
    static Value read(Value root, List<String> keys) {
        Value current = root;
        for (String key : keys) {
            current = key.startsWith(".") ? current.attr(key.substring(1)) : current.item(key);
        }
        return current;
    }

    /** {@code root} with the value at {@code keys} replaced (strong) or joined (weak). */
    static Value update(Value root, List<String> keys, int from, Value value, boolean weak) {
        if (from == keys.size()) {
            return weak ? root.join(value) : value;
        }
        String key = keys.get(from);
        Value child = root.fields.getOrDefault(key, Value.CLEAN);
        return root.with(key, update(child, keys, from + 1, value, weak)).capped(8);
    }
}
