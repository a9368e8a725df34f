package io.healbench.guard.service.analysis;

import java.util.List;
import java.util.Map;

/** Builds a module's scope: top-level bindings, and every function and class with its parameters and locals. */
final class ScopeBuilder {

    private static final List<String> COMPOUND_BODIES = List.of("body", "orelse", "finalbody", "handlers", "cases");

    private final ModuleScope scope;
    private final ProjectIndex index;

    private ScopeBuilder(ModuleScope scope, ProjectIndex index) {
        this.scope = scope;
        this.index = index;
    }

    static void build(ModuleScope scope, ProjectIndex index) {
        ScopeBuilder builder = new ScopeBuilder(scope, index);
        builder.topLevel(scope.tree.nodes("body"));
    }

    // ---------------------------------------------------------------- module level

    private void topLevel(List<PyNode> body) {
        for (PyNode statement : body) {
            if (statement == null) {
                continue;
            }
            switch (statement.type()) {
                case "Import", "ImportFrom" -> bindImports(statement, scope.bindings);
                case "FunctionDef", "AsyncFunctionDef" -> {
                    String name = statement.str("name");
                    scope.bindings.put(name, scope.name + "." + name);
                    function(statement, name, null, null);
                }
                case "ClassDef" -> {
                    String name = statement.str("name");
                    scope.bindings.put(name, scope.name + "." + name);
                    klass(statement, name, null);
                }
                case "Assign", "AnnAssign" -> {
                    List<PyNode> targets = statement.is("Assign") ? statement.nodes("targets") : List.of(statement.node("target"));
                    PyNode value = statement.node("value");
                    for (PyNode target : targets) {
                        for (String name : NameCollector.boundNames(target)) {
                            scope.assigned.add(name);
                            if (target.is("Name") && value != null) {
                                scope.definitions.computeIfAbsent(name, k -> new java.util.ArrayList<>()).add(value);
                            } else {
                                scope.redefined.add(name);
                            }
                        }
                    }
                    String alias = value == null ? null : dotted(value, scope.bindings, scope.name);
                    if (targets.size() == 1 && targets.get(0) != null && targets.get(0).is("Name") && alias != null
                            && (value.is("Attribute") || scope.bindings.containsKey(value.str("id")))) {
                        scope.bindings.put(targets.get(0).str("id"), alias);
                    }
                }
                default -> {
                    for (String name : NameCollector.storedNames(statement)) {
                        scope.assigned.add(name);
                        scope.redefined.add(name);
                    }
                    for (String field : COMPOUND_BODIES) {
                        List<PyNode> inner = statement.nodes(field);
                        if (!inner.isEmpty()) {
                            topLevel(field.equals("handlers") || field.equals("cases") ? flatten(inner) : inner);
                        }
                    }
                }
            }
        }
        scope.body.locals.addAll(scope.assigned);
    }

    private static List<PyNode> flatten(List<PyNode> clauses) {
        return clauses.stream().filter(c -> c != null).flatMap(c -> c.nodes("body").stream()).toList();
    }

    private void bindImports(PyNode statement, Map<String, String> bindings) {
        bindImports(scope, statement, bindings);
    }

    /** Binds an import statement's names (relative imports resolved against the module's package). */
    static void bindImports(ModuleScope scope, PyNode statement, Map<String, String> bindings) {
        if (statement.is("Import")) {
            for (PyNode alias : statement.nodes("names")) {
                String name = alias.str("name");
                String as = alias.str("asname");
                if (as != null) {
                    bindings.put(as, name);
                } else {
                    String first = name.contains(".") ? name.substring(0, name.indexOf('.')) : name;
                    bindings.put(first, first);
                }
            }
            return;
        }
        String base = fromModule(scope, statement);
        for (PyNode alias : statement.nodes("names")) {
            String name = alias.str("name");
            if (!"*".equals(name)) {
                String as = alias.str("asname");
                bindings.put(as != null ? as : name, base.isEmpty() ? name : base + "." + name);
            }
        }
    }

    private static String fromModule(ModuleScope scope, PyNode statement) {
        String module = statement.str("module");
        int level = statement.integer("level", 0);
        if (level == 0) {
            return module == null ? "" : module;
        }
        String[] parts = scope.packageName().isEmpty() ? new String[0] : scope.packageName().split("\\.");
        int keep = Math.max(0, parts.length - (level - 1));
        String anchor = String.join(".", java.util.Arrays.copyOf(parts, keep));
        if (module == null || module.isEmpty()) {
            return anchor;
        }
        return anchor.isEmpty() ? module : anchor + "." + module;
    }

    // ---------------------------------------------------------------- definitions

    private ClassInfo klass(PyNode node, String qualname, FunctionInfo enclosing) {
        ClassInfo info = new ClassInfo(scope, qualname, node);
        index.register(info);
        for (PyNode statement : node.nodes("body")) {
            if (statement == null) {
                continue;
            }
            if (statement.isAny("FunctionDef", "AsyncFunctionDef")) {
                FunctionInfo.Kind kind = methodKind(statement);
                if (kind != null) {
                    FunctionInfo method = function(statement, qualname + "." + statement.str("name"), info, enclosing, kind);
                    info.methods.put(statement.str("name"), method);
                } else {
                    function(statement, qualname + "." + statement.str("name"), info, enclosing, FunctionInfo.Kind.METHOD);
                }
            } else if (statement.is("ClassDef")) {
                klass(statement, qualname + "." + statement.str("name"), enclosing);
            }
        }
        return info;
    }

    /** The kind a method's decorators make it; null for property setters/deleters (not looked up by name). */
    private static FunctionInfo.Kind methodKind(PyNode def) {
        FunctionInfo.Kind kind = FunctionInfo.Kind.METHOD;
        for (PyNode decorator : def.nodes("decorator_list")) {
            String name = decorator.is("Name") ? decorator.str("id") : decorator.is("Attribute") ? decorator.str("attr") : "";
            switch (name) {
                case "staticmethod" -> kind = FunctionInfo.Kind.STATIC;
                case "classmethod" -> kind = FunctionInfo.Kind.CLASS_METHOD;
                case "property", "cached_property" -> kind = FunctionInfo.Kind.PROPERTY;
                case "setter", "deleter" -> {
                    return null;
                }
                default -> { }
            }
        }
        return kind;
    }

    private FunctionInfo function(PyNode node, String qualname, ClassInfo owner, FunctionInfo parent) {
        return function(node, qualname, owner, parent, FunctionInfo.Kind.FUNCTION);
    }

    private FunctionInfo function(PyNode node, String qualname, ClassInfo owner, FunctionInfo parent, FunctionInfo.Kind kind) {
        FunctionInfo info = new FunctionInfo(scope, qualname, node, owner, parent, kind);
        PyNode args = node.node("args");
        if (args != null) {
            for (PyNode arg : args.nodes("posonlyargs")) {
                info.positional.add(arg.str("arg"));
            }
            for (PyNode arg : args.nodes("args")) {
                info.positional.add(arg.str("arg"));
            }
            info.vararg = args.node("vararg") == null ? null : args.node("vararg").str("arg");
            for (PyNode arg : args.nodes("kwonlyargs")) {
                info.keywordOnly.add(arg.str("arg"));
            }
            info.kwarg = args.node("kwarg") == null ? null : args.node("kwarg").str("arg");
        }
        info.locals.addAll(info.allParameters());
        index.register(info);
        for (PyNode statement : node.nodes("body")) {
            body(statement, info);
        }
        return info;
    }

    /** Collects a function body's scope facts, registering nested definitions. */
    private void body(PyNode statement, FunctionInfo info) {
        if (statement == null) {
            return;
        }
        switch (statement.type()) {
            case "FunctionDef", "AsyncFunctionDef" -> {
                String name = statement.str("name");
                info.locals.add(name);
                info.nested.put(name, function(statement, info.qualname + ".<locals>." + name, null, info));
                return;
            }
            case "ClassDef" -> {
                String name = statement.str("name");
                info.locals.add(name);
                info.nestedClasses.put(name, klass(statement, info.qualname + ".<locals>." + name, info));
                return;
            }
            case "Import", "ImportFrom" -> {
                bindImports(statement, info.imports);
                info.locals.addAll(info.imports.keySet());
                return;
            }
            case "Global" -> {
                for (Object name : (List<?>) statement.raw("names")) {
                    info.declaredGlobal.add(String.valueOf(name));
                }
                return;
            }
            case "Nonlocal" -> {
                for (Object name : (List<?>) statement.raw("names")) {
                    info.locals.remove(String.valueOf(name));
                }
                return;
            }
            default -> { }
        }
        for (String name : NameCollector.storedNames(statement)) {
            info.locals.add(name);
            if (info.allParameters().contains(name)) {
                info.rebound.add(name);
            }
            if (info.declaredGlobal.contains(name)) {
                scope.redefined.add(name);
            }
        }
        if (NameCollector.yields(statement)) {
            info.generator = true;
        }
        for (String field : COMPOUND_BODIES) {
            for (PyNode inner : statement.nodes(field)) {
                if (inner != null && inner.isAny("ExceptHandler", "match_case")) {
                    if (inner.str("name") != null) {
                        info.locals.add(inner.str("name"));
                    }
                    info.locals.addAll(NameCollector.patternNames(inner.node("pattern")));
                    for (PyNode nested : inner.nodes("body")) {
                        body(nested, info);
                    }
                } else {
                    body(inner, info);
                }
            }
        }
    }

    // ---------------------------------------------------------------- names

    /**
     * The qualified name a Name or Attribute chain denotes through these bindings ({@code os.path.join},
     * {@code pkg.mod.Config}), or null. An unbound Name denotes a builtin (itself) or a global of the module.
     */
    static String dotted(PyNode expression, Map<String, String> bindings, String moduleName) {
        if (expression == null) {
            return null;
        }
        if (expression.is("Name")) {
            String name = expression.str("id");
            String bound = bindings.get(name);
            if (bound != null) {
                return bound;
            }
            return Builtins.NAMES.contains(name) ? name : moduleName + "." + name;
        }
        if (expression.is("Attribute")) {
            String base = dotted(expression.node("value"), bindings, moduleName);
            return base == null ? null : base + "." + expression.str("attr");
        }
        return null;
    }
}
