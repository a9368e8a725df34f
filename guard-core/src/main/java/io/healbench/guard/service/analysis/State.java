package io.healbench.guard.service.analysis;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * The abstract state at a program point of one function activation: the values of its locals (absent = carries
 * nothing) and must-aliases (a local that refers to the same object as another location). {@link #bottom()} is
 * the unreachable state. Mutable; copied at branches.
 */
final class State {

    private boolean bottom;
    final Map<String, Value> locals;
    /** local name -> the location it was bound to (same object), while neither is rebound. */
    final Map<String, AccessPath> aliases;

    private State(boolean bottom, Map<String, Value> locals, Map<String, AccessPath> aliases) {
        this.bottom = bottom;
        this.locals = locals;
        this.aliases = aliases;
    }

    static State bottom() {
        return new State(true, new HashMap<>(), new HashMap<>());
    }

    static State empty() {
        return new State(false, new HashMap<>(), new HashMap<>());
    }

    boolean isBottom() {
        return bottom;
    }

    State copy() {
        return new State(bottom, new HashMap<>(locals), new HashMap<>(aliases));
    }

    Value get(String name) {
        return locals.getOrDefault(name, Value.CLEAN);
    }

    void put(String name, Value value) {
        if (value.isTrivial()) {
            locals.remove(name);
        } else {
            locals.put(name, value);
        }
    }

    /** This state joined with another (in place); bottom is the identity. */
    void join(State other) {
        if (other.bottom) {
            return;
        }
        if (bottom) {
            bottom = false;
            locals.clear();
            locals.putAll(other.locals);
            aliases.clear();
            aliases.putAll(other.aliases);
            return;
        }
        for (Iterator<Map.Entry<String, Value>> it = locals.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Value> entry = it.next();
            entry.setValue(entry.getValue().join(other.locals.getOrDefault(entry.getKey(), Value.CLEAN)));
            if (entry.getValue().isTrivial()) {
                it.remove();
            }
        }
        for (Map.Entry<String, Value> entry : other.locals.entrySet()) {
            if (!locals.containsKey(entry.getKey())) {
                Value joined = entry.getValue().join(Value.CLEAN);  // absent here: nothing known of it
                if (!joined.isTrivial()) {
                    locals.put(entry.getKey(), joined);
                }
            }
        }
        aliases.entrySet().removeIf(alias -> !alias.getValue().equals(other.aliases.get(alias.getKey())));
    }

    boolean same(State other) {
        if (bottom || other.bottom) {
            return bottom == other.bottom;
        }
        if (!aliases.equals(other.aliases) || locals.size() != other.locals.size()) {
            return false;
        }
        for (Map.Entry<String, Value> entry : locals.entrySet()) {
            Value theirs = other.locals.get(entry.getKey());
            if (theirs == null || !theirs.same(entry.getValue())) {
                return false;
            }
        }
        return true;
    }
}
