package io.healbench.guard.service.analysis;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Module globals (and class attributes) that carry heal sources, flow-insensitively: every write is a weak update,
 * so what one function writes any other reads. {@link #changed()} tells the driver to run another round.
 */
final class GlobalStore {

    private final Map<String, Value> values = new HashMap<>();
    private boolean changed;

    Value get(String root) {
        return values.getOrDefault(root, Value.CLEAN);
    }

    void write(AccessPath path, Value value) {
        Value before = get(path.root());
        Value after = Locations.update(before, path.keys(), 0, value, true);
        if (!after.same(before)) {
            values.put(path.root(), after);
            changed = true;
        }
    }

    boolean changed() {
        return changed;
    }

    /** Starts watching for changes again (a new round of the driver). */
    void resetChanged() {
        changed = false;
    }

    boolean isClean() {
        for (Value value : values.values()) {
            if (!value.isClean()) {
                return false;
            }
        }
        return true;
    }

    /** The stored roots and their shapes, for memo keys of calls that may read globals. */
    String signature() {
        StringBuilder text = new StringBuilder();
        values.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(entry -> text.append(entry.getKey()).append('=').append(entry.getValue().signature()).append(';'));
        return text.toString();
    }

    List<String> roots() {
        return List.copyOf(values.keySet());
    }
}
