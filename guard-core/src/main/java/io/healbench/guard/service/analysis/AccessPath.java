package io.healbench.guard.service.analysis;

import java.util.ArrayList;
import java.util.List;

/**
 * A location: a root (a local name, or {@code @module.name} for a module global) and field keys (see {@link Value}).
 * A key {@code [*]} or {@code .*} makes the path inexact: writes through it are weak.
 */
record AccessPath(String root, List<String> keys) {

    static AccessPath of(String root) {
        return new AccessPath(root, List.of());
    }

    static String global(String module, String name) {
        return "@" + module + "." + name;
    }

    boolean isGlobal() {
        return root.startsWith("@");
    }

    AccessPath then(String key) {
        List<String> longer = new ArrayList<>(keys);
        longer.add(key);
        return new AccessPath(root, List.copyOf(longer));
    }

    boolean exact() {
        return !keys.contains(Value.ANY_ITEM) && !keys.contains(Value.ANY_ATTR);
    }

    /** True when this path is {@code other} or lies inside it. */
    boolean within(AccessPath other) {
        return root.equals(other.root) && keys.size() >= other.keys.size() && keys.subList(0, other.keys.size()).equals(other.keys);
    }

    /** This path re-rooted: the part after {@code prefix}, appended to {@code target}. */
    AccessPath rebase(AccessPath prefix, AccessPath target) {
        List<String> moved = new ArrayList<>(target.keys);
        moved.addAll(keys.subList(prefix.keys.size(), keys.size()));
        return new AccessPath(target.root, List.copyOf(moved));
    }

    /** Python-like text for witnesses: {@code self.cfg.name}, {@code d['k']}, {@code mod.G}. */
    String display() {
        StringBuilder text = new StringBuilder(isGlobal() ? root.substring(1) : root);
        for (String key : keys) {
            if (key.startsWith(".")) {
                text.append(key);
            } else if (key.equals(Value.ANY_ITEM) || key.equals(Value.KEYS)) {
                text.append("[...]");
            } else if (key.startsWith("[s:")) {
                text.append("['").append(key, 3, key.length() - 1).append("']");
            } else {
                text.append('[').append(key, 3, key.length() - 1).append(']');
            }
        }
        return text.toString();
    }

    @Override
    public String toString() {
        return display();
    }
}
