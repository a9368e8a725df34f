package io.healbench.guard.service.analysis;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which heal sources a value carries, each with the flow that brought it here. Immutable. Lattice order is by
 * sources only: a join keeps the flow it already had for a source, so fixpoints do not chase witnesses.
 */
final class Taint {

    static final Taint NONE = new Taint(Map.of());

    private final Map<String, Step> flows;

    private Taint(Map<String, Step> flows) {
        this.flows = flows;
    }

    static Taint source(String label, Step origin) {
        return new Taint(Map.of(label, origin));
    }

    boolean isEmpty() {
        return flows.isEmpty();
    }

    Set<String> sources() {
        return flows.keySet();
    }

    Taint union(Taint other) {
        if (other.flows.isEmpty() || other == this) {
            return this;
        }
        if (flows.isEmpty()) {
            return other;
        }
        if (flows.keySet().containsAll(other.flows.keySet())) {
            return this;
        }
        Map<String, Step> merged = new TreeMap<>(flows);
        other.flows.forEach(merged::putIfAbsent);
        return new Taint(Collections.unmodifiableMap(merged));
    }

    /** Every flow extended by one step. */
    Taint then(String file, int line, int col, String description) {
        if (flows.isEmpty()) {
            return this;
        }
        Map<String, Step> extended = new TreeMap<>();
        flows.forEach((label, step) -> extended.put(label, step.then(file, line, col, description)));
        return new Taint(Collections.unmodifiableMap(extended));
    }

    boolean sameSources(Taint other) {
        return flows.keySet().equals(other.flows.keySet());
    }

    /** The shortest flow (ties: the first source label), for the witness. */
    Map.Entry<String, Step> shortest() {
        Map.Entry<String, Step> best = null;
        for (Map.Entry<String, Step> entry : flows.entrySet()) {
            if (best == null || entry.getValue().length < best.getValue().length) {
                best = entry;
            }
        }
        return best;
    }

    @Override
    public String toString() {
        return flows.keySet().toString();
    }
}
