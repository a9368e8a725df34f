package io.healbench.guard.service.analysis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Syntactic facts about one statement's own expressions (not its nested bodies or nested definitions). */
final class NameCollector {

    private static final Set<String> BODIES = Set.of("body", "orelse", "finalbody", "handlers", "cases");
    private static final Set<String> OWN_SCOPES = Set.of("FunctionDef", "AsyncFunctionDef", "ClassDef", "Lambda",
            "ListComp", "SetComp", "DictComp", "GeneratorExp");

    private NameCollector() {}

    /** Names the statement itself binds or deletes (targets, walrus), not those of its nested bodies. */
    static List<String> storedNames(PyNode statement) {
        List<String> names = new ArrayList<>();
        for (PyNode child : ownChildren(statement)) {
            collectStored(child, names);
        }
        return names;
    }

    /** Names a target expression binds (x, (a, b), *rest). */
    static List<String> boundNames(PyNode target) {
        List<String> names = new ArrayList<>();
        if (target != null) {
            collectStored(target, names);
        }
        return names;
    }

    private static void collectStored(PyNode node, List<String> names) {
        if (node == null) {
            return;
        }
        if (node.is("Name")) {
            PyNode ctx = node.node("ctx");
            if (ctx != null && ctx.isAny("Store", "Del")) {
                names.add(node.str("id"));
            }
            return;
        }
        if (node.is("NamedExpr")) {
            collectStored(node.node("target"), names);
        }
        if (OWN_SCOPES.contains(node.type())) {
            return;
        }
        for (PyNode child : children(node)) {
            collectStored(child, names);
        }
    }

    /** Names a match pattern captures. */
    static List<String> patternNames(PyNode pattern) {
        List<String> names = new ArrayList<>();
        collectPattern(pattern, names);
        return names;
    }

    private static void collectPattern(PyNode node, List<String> names) {
        if (node == null) {
            return;
        }
        if (node.isAny("MatchAs", "MatchStar") && node.str("name") != null) {
            names.add(node.str("name"));
        }
        if (node.is("MatchMapping") && node.str("rest") != null) {
            names.add(node.str("rest"));
        }
        for (PyNode child : children(node)) {
            collectPattern(child, names);
        }
    }

    /** True when the statement's own expressions yield (the function is a generator). */
    static boolean yields(PyNode statement) {
        for (PyNode child : ownChildren(statement)) {
            if (containsYield(child)) {
                return true;
            }
        }
        return false;
    }

    private static boolean containsYield(PyNode node) {
        if (node == null || OWN_SCOPES.contains(node.type()) && !node.isAny("ListComp", "SetComp", "DictComp", "GeneratorExp")) {
            return false;
        }
        if (node.isAny("Yield", "YieldFrom")) {
            return true;
        }
        for (PyNode child : children(node)) {
            if (containsYield(child)) {
                return true;
            }
        }
        return false;
    }

    /** The statement's child nodes outside its nested statement bodies. */
    static List<PyNode> ownChildren(PyNode statement) {
        List<PyNode> own = new ArrayList<>();
        for (Map.Entry<String, Object> field : statement.fieldsView().entrySet()) {
            if (!BODIES.contains(field.getKey())) {
                addNodes(field.getValue(), own);
            }
        }
        return own;
    }

    /** Every child node of a node. */
    static List<PyNode> children(PyNode node) {
        List<PyNode> all = new ArrayList<>();
        for (Object value : node.fieldsView().values()) {
            addNodes(value, all);
        }
        return all;
    }

    private static void addNodes(Object value, List<PyNode> out) {
        if (value instanceof PyNode child) {
            out.add(child);
        } else if (value instanceof List<?> list) {
            for (Object item : list) {
                if (item instanceof PyNode child) {
                    out.add(child);
                }
            }
        }
    }
}
