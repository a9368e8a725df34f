package io.healbench.guard.service.analysis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The project's modules, functions and classes, and name resolution over them: what a dotted name refers to
 * (following imports and plain aliases), class bases, method lookup along the MRO and overriding subclasses.
 */
final class ProjectIndex {

    private static final int MAX_ALIAS_HOPS = 12;

    private final Map<String, ModuleScope> modules = new HashMap<>();
    private final Map<String, ModuleScope> byFile = new HashMap<>();
    /** Qualified name -> definitions (a property's getter and setter, or a redefinition, share one). */
    private final Map<String, List<FunctionInfo>> functions = new HashMap<>();
    private final Map<String, ClassInfo> classes = new HashMap<>();
    private final Map<String, List<FunctionInfo>> methodsByName = new HashMap<>();

    ProjectIndex(List<ModuleScope> scopes) {
        for (ModuleScope scope : scopes) {
            modules.put(scope.name, scope);
            byFile.put(scope.file, scope);
        }
        for (ModuleScope scope : scopes) {
            ScopeBuilder.build(scope, this);
        }
    }

    void register(FunctionInfo function) {
        functions.computeIfAbsent(function.qualified(), k -> new ArrayList<>()).add(function);
        if (function.owner != null) {
            methodsByName.computeIfAbsent(function.name(), k -> new ArrayList<>()).add(function);
        }
    }

    void register(ClassInfo info) {
        classes.put(info.qualified(), info);
    }

    ModuleScope module(String name) {
        return modules.get(name);
    }

    ModuleScope moduleOfFile(String file) {
        return byFile.get(file);
    }

    /** The function with this qualified name (module + qualname), following aliases. */
    FunctionInfo function(String qualified) {
        List<FunctionInfo> found = qualified == null ? null : functions.get(canonical(qualified));
        return found == null ? null : found.get(0);
    }

    ClassInfo classInfo(String qualified) {
        return qualified == null ? null : classes.get(canonical(qualified));
    }

    /** True when the qualified name is inside a project module (whether or not it resolves). */
    boolean isProject(String qualified) {
        return projectModuleOf(qualified) != null;
    }

    /** The longest project module name that prefixes the qualified name, or null. */
    String projectModuleOf(String qualified) {
        String candidate = qualified;
        while (true) {
            if (modules.containsKey(candidate)) {
                return candidate;
            }
            int dot = candidate.lastIndexOf('.');
            if (dot < 0) {
                return null;
            }
            candidate = candidate.substring(0, dot);
        }
    }

    /**
     * The qualified name with project aliases followed: {@code pkg.f} where {@code pkg/__init__.py} does
     * {@code from .mod import f} becomes {@code pkg.mod.f}. Names outside the project come back unchanged.
     */
    String canonical(String qualified) {
        String current = qualified;
        for (int hop = 0; hop < MAX_ALIAS_HOPS; hop++) {
            String moduleName = projectModuleOf(current);
            if (moduleName == null || moduleName.equals(current)) {
                return current;
            }
            String rest = current.substring(moduleName.length() + 1);
            int dot = rest.indexOf('.');
            String first = dot < 0 ? rest : rest.substring(0, dot);
            String tail = dot < 0 ? "" : rest.substring(dot);
            String bound = modules.get(moduleName).bindings.get(first);
            if (bound == null || bound.equals(moduleName + "." + first)) {
                return current;
            }
            current = bound + tail;
        }
        return current;
    }

    /** Project classes a class derives from, as resolvable. */
    List<ClassInfo> bases(ClassInfo info) {
        List<ClassInfo> found = new ArrayList<>();
        for (PyNode base : info.bases) {
            String qualified = ScopeBuilder.dotted(base, info.module.bindings, info.module.name);
            ClassInfo resolved = qualified == null ? null : classInfo(qualified);
            if (resolved != null && resolved != info) {
                found.add(resolved);
            }
        }
        return found;
    }

    /** Depth-first, left-to-right linearization of the project bases (enough for name lookup). */
    List<ClassInfo> mro(ClassInfo info) {
        Set<ClassInfo> order = new LinkedHashSet<>();
        collect(info, order, 0);
        return List.copyOf(order);
    }

    private void collect(ClassInfo info, Set<ClassInfo> order, int depth) {
        if (depth > 30 || !order.add(info)) {
            return;
        }
        for (ClassInfo base : bases(info)) {
            collect(base, order, depth + 1);
        }
    }

    /** The method a class (or its project bases) defines under this name, or null. */
    FunctionInfo lookup(ClassInfo info, String name) {
        for (ClassInfo klass : mro(info)) {
            FunctionInfo method = klass.methods.get(name);
            if (method != null) {
                return method;
            }
        }
        return null;
    }

    /** Methods named so in project classes deriving from {@code info} (overrides a call on self may reach). */
    List<FunctionInfo> overrides(ClassInfo info, String name) {
        List<FunctionInfo> found = new ArrayList<>();
        for (ClassInfo klass : classes.values()) {
            if (klass != info && klass.methods.containsKey(name) && mro(klass).contains(info)) {
                found.add(klass.methods.get(name));
            }
        }
        found.sort((a, b) -> a.qualified().compareTo(b.qualified()));
        return found;
    }

    /** Every project method with this name (a call on a receiver of unknown type may reach any of them). */
    List<FunctionInfo> methodsNamed(String name) {
        List<FunctionInfo> found = new ArrayList<>(methodsByName.getOrDefault(name, List.of()));
        found.sort((a, b) -> a.qualified().compareTo(b.qualified()));
        return found;
    }

    /** The function of that module with this qualname whose definition spans the line ({@code <module>}: the body). */
    FunctionInfo functionIn(ModuleScope scope, String qualname, int line) {
        if (qualname == null || qualname.equals("<module>")) {
            return scope.body;
        }
        for (FunctionInfo candidate : functions.getOrDefault(scope.name + "." + qualname, List.of())) {
            if (candidate.node.spansLine(line)) {
                return candidate;
            }
        }
        return null;
    }
}
