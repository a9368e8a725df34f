package io.healbench.guard.service.analysis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A project function or method: its definition, parameters and scope (which names are its locals). */
final class FunctionInfo {

    enum Kind { FUNCTION, METHOD, STATIC, CLASS_METHOD, PROPERTY }

    final ModuleScope module;
    final String qualname;
    /** FunctionDef or AsyncFunctionDef; the Module node for a module body. */
    final PyNode node;
    final ClassInfo owner;
    final FunctionInfo parent;
    final Kind kind;
    /** Positional parameters in order (positional-only first), including self/cls. */
    final List<String> positional = new ArrayList<>();
    final List<String> keywordOnly = new ArrayList<>();
    String vararg;
    String kwarg;
    final Set<String> locals = new HashSet<>();
    final Set<String> declaredGlobal = new HashSet<>();
    /** Parameters the body rebinds: writes through them after that are not the caller's object's. */
    final Set<String> rebound = new HashSet<>();
    final Map<String, FunctionInfo> nested = new HashMap<>();
    final Map<String, ClassInfo> nestedClasses = new HashMap<>();
    /** Names bound by imports inside the body: name -> qualified name. */
    final Map<String, String> imports = new HashMap<>();
    boolean generator;
    /** name -> its bound-method definition ({@code add = items.append}) when that is its only binding. */
    private Map<String, PyNode> methodAliases;

    FunctionInfo(ModuleScope module, String qualname, PyNode node, ClassInfo owner, FunctionInfo parent, Kind kind) {
        this.module = module;
        this.qualname = qualname;
        this.node = node;
        this.owner = owner;
        this.parent = parent;
        this.kind = kind;
    }

    boolean isModuleBody() {
        return node.is("Module");
    }

    String qualified() {
        return isModuleBody() ? module.name : module.name + "." + qualname;
    }

    String name() {
        return isModuleBody() ? "<module>" : node.str("name");
    }

    /**
     * The root of free variable {@code name} (a local of an enclosing function) when the activation that created
     * its cell is not analysed: a global-like location named after the cell's owner, shared by every activation
     * that reads the cell (e.g. a memoizing decorator's cache seen from its wrapper). Null when it is not one.
     */
    String cellRoot(String name) {
        if (isModuleBody() || isLocal(name)) {
            return null;
        }
        for (FunctionInfo outer = parent; outer != null; outer = outer.parent) {
            if (outer.isLocal(name)) {
                return AccessPath.global(outer.qualified() + ".<cell>", name);
            }
        }
        return null;
    }

    /** True when the name is a local of this function (module bodies have none: their names are globals). */
    boolean isLocal(String name) {
        return !isModuleBody() && locals.contains(name) && !declaredGlobal.contains(name);
    }

    /** The parameter holding the bound object (self/cls), or null for functions and static methods. */
    String receiver() {
        return (kind == Kind.METHOD || kind == Kind.CLASS_METHOD || kind == Kind.PROPERTY) && !positional.isEmpty()
                ? positional.get(0) : null;
    }

    /**
     * The {@code obj.method} expression a local is bound to when every binding of it in this body is
     * {@code name = obj.method} with that same expression's method name (a bound-method alias), else null.
     */
    PyNode methodAlias(String name) {
        if (methodAliases == null) {
            methodAliases = new HashMap<>();
            Map<String, PyNode> found = new HashMap<>();
            java.util.Set<String> other = new java.util.HashSet<>();
            java.util.Deque<PyNode> work = new java.util.ArrayDeque<>(node.nodes("body").stream().filter(n -> n != null).toList());
            while (!work.isEmpty()) {
                PyNode statement = work.pop();
                if (statement.isAny("FunctionDef", "AsyncFunctionDef", "ClassDef")) {
                    continue;
                }
                List<PyNode> targets = statement.is("Assign") ? statement.nodes("targets") : List.of();
                PyNode value = statement.node("value");
                for (String bound : NameCollector.storedNames(statement)) {
                    boolean alias = targets.size() == 1 && targets.get(0).is("Name") && value != null && value.is("Attribute")
                            && (found.get(bound) == null || found.get(bound).str("attr").equals(value.str("attr")));
                    if (alias) {
                        found.put(bound, value);
                    } else {
                        other.add(bound);
                    }
                }
                for (PyNode child : NameCollector.children(statement)) {
                    if (child.isAny("ExceptHandler", "match_case")) {
                        other.add(child.str("name"));
                        child.nodes("body").stream().filter(n -> n != null).forEach(work::push);
                    } else if (statementKinds(child)) {
                        work.push(child);
                    }
                }
            }
            found.forEach((bound, value) -> {
                if (!other.contains(bound) && !allParameters().contains(bound)) {
                    methodAliases.put(bound, value);
                }
            });
        }
        return methodAliases.get(name);
    }

    /** Statement nodes (children of a compound statement's bodies), as opposed to expressions. */
    private static boolean statementKinds(PyNode child) {
        return child.isAny("Expr", "Assign", "AnnAssign", "AugAssign", "Delete", "Return", "If", "For", "AsyncFor", "While",
                "Try", "TryStar", "With", "AsyncWith", "Raise", "Assert", "Match", "Import", "ImportFrom", "Global",
                "Nonlocal", "Pass", "Break", "Continue");
    }

    List<String> allParameters() {
        List<String> all = new ArrayList<>(positional);
        if (vararg != null) {
            all.add(vararg);
        }
        all.addAll(keywordOnly);
        if (kwarg != null) {
            all.add(kwarg);
        }
        return all;
    }

    @Override
    public String toString() {
        return qualified();
    }
}
