package io.healbench.guard.service.analysis;

import java.util.HashMap;
import java.util.Map;

/**
 * What names and name chains denote in one {@link Activation}: a local, a variable of an enclosing function (read
 * through the closure, or the cell of its calling context), a module global, or a module, class, function or library
 * symbol; and the location ({@link AccessPath}) an expression names, for writes and aliases.
 */
final class NameResolver {

    private final Activation act;
    /** The enclosing function's state when this activation is a nested function called from it, else null. */
    private final State closure;
    /** Comprehension variables in scope: locals of the comprehension, not of the function. */
    private final Map<String, Integer> comprehension = new HashMap<>();

    NameResolver(Activation act, State closure) {
        this.act = act;
        this.closure = closure;
    }

    boolean isLocal(String name) {
        return comprehension.containsKey(name) || act.fn.isLocal(name) || Activation.RETURN_SLOT.equals(name) && !act.fn.isModuleBody();
    }

    boolean enclosingLocal(String name) {
        for (FunctionInfo outer = act.fn.parent; outer != null; outer = outer.parent) {
            if (outer.isLocal(name)) {
                return true;
            }
        }
        return false;
    }

    /** A comprehension binds {@code name}; comprehensions nest, so the same name may be bound more than once. */
    void enterComprehension(String name) {
        comprehension.merge(name, 1, Integer::sum);
    }

    /** A comprehension that bound {@code name} ends; true when no enclosing comprehension still binds it. */
    boolean leaveComprehension(String name) {
        comprehension.computeIfPresent(name, (k, count) -> count > 1 ? count - 1 : null);
        return !comprehension.containsKey(name);
    }

    Value readName(String name) {
        FunctionInfo fn = act.fn;
        if (isLocal(name)) {
            Value value = act.state.get(name);
            if (name.equals(fn.receiver()) && value.type == null && value.symbol == null && fn.owner != null) {
                // self (cls) of a method is an instance (the class) of its class, or of a subclass.
                return fn.kind == FunctionInfo.Kind.CLASS_METHOD ? value.join(Value.symbol(fn.owner.qualified()))
                        : value.withType(fn.owner.qualified());
            }
            if (value.isTrivial()) {
                if (fn.nested.containsKey(name)) {
                    return Value.symbol(fn.nested.get(name).qualified());
                }
                if (fn.nestedClasses.containsKey(name)) {
                    return Value.symbol(fn.nestedClasses.get(name).qualified());
                }
                if (fn.imports.containsKey(name)) {
                    return Value.symbol(act.an.index.canonical(fn.imports.get(name)));
                }
            }
            return value;
        }
        if (enclosingLocal(name)) {
            for (FunctionInfo outer = fn.parent; outer != null; outer = outer.parent) {
                if (outer.isLocal(name) && outer.nested.containsKey(name)) {
                    return Value.symbol(outer.nested.get(name).qualified());
                }
            }
            return closure == null ? act.an.globals.get(fn.cellRoot(name)) : closure.get(name);
        }
        Value stored = fn.isModuleBody() && act.state.locals.containsKey(name) ? act.state.locals.get(name)
                : act.an.globals.get(AccessPath.global(fn.module.name, name));
        String bound = fn.module.bindings.get(name);
        if (bound != null) {
            Value symbol = Value.symbol(act.an.index.canonical(bound));
            return stored.isTrivial() ? symbol : stored.join(symbol);
        }
        if (fn.module.assigned.contains(name) || !Builtins.NAMES.contains(name)) {
            return stored;
        }
        return Value.symbol(name);
    }

    /**
     * The qualified name a Name/Attribute chain denotes when it is a module, class, function or library name
     * (not a local's data), else null.
     */
    String staticSymbol(PyNode e) {
        if (e == null) {
            return null;
        }
        FunctionInfo fn = act.fn;
        ProjectIndex index = act.an.index;
        if (e.is("Name")) {
            String name = e.str("id");
            if (isLocal(name)) {
                Value value = act.state.get(name);
                if (value.symbol != null && value.type == null) {
                    return value.symbol;
                }
                if (fn.imports.containsKey(name)) {
                    return index.canonical(fn.imports.get(name));
                }
                if (fn.nested.containsKey(name)) {
                    return fn.nested.get(name).qualified();
                }
                return fn.nestedClasses.containsKey(name) ? fn.nestedClasses.get(name).qualified() : null;
            }
            if (enclosingLocal(name)) {
                for (FunctionInfo outer = fn.parent; outer != null; outer = outer.parent) {
                    if (outer.nested.containsKey(name)) {
                        return outer.nested.get(name).qualified();
                    }
                    if (outer.nestedClasses.containsKey(name)) {
                        return outer.nestedClasses.get(name).qualified();
                    }
                }
                return null;
            }
            String bound = fn.module.bindings.get(name);
            if (bound != null) {
                return index.canonical(bound);
            }
            return Builtins.NAMES.contains(name) && !fn.module.assigned.contains(name) ? name : null;
        }
        if (e.is("Attribute")) {
            String base = staticSymbol(e.node("value"));
            if (base == null) {
                return null;
            }
            String qualified = index.canonical(base + "." + e.str("attr"));
            String module = index.projectModuleOf(qualified);
            if (module != null && !module.equals(qualified)) {
                // A project module's data global is a location, not a symbol.
                String rest = qualified.substring(module.length() + 1);
                ModuleScope scope = index.module(module);
                if (!rest.contains(".") && scope.assigned.contains(rest) && !scope.bindings.containsKey(rest)) {
                    return null;
                }
            }
            return qualified;
        }
        return null;
    }

    /** The location an expression names ({@code x}, {@code self.a}, {@code d['k']}, {@code mod.G}), or null. */
    AccessPath pathOf(PyNode e) {
        if (e == null) {
            return null;
        }
        FunctionInfo fn = act.fn;
        switch (e.type()) {
            case "Name" -> {
                String name = e.str("id");
                if (isLocal(name)) {
                    return AccessPath.of(name);
                }
                if (enclosingLocal(name)) {
                    return closure != null ? null : AccessPath.of(fn.cellRoot(name));
                }
                if (fn.module.bindings.containsKey(name) && !fn.module.assigned.contains(name)) {
                    return null;  // an import, def or class: not a data location of this module
                }
                return Builtins.NAMES.contains(name) && !fn.module.assigned.contains(name) ? null
                        : AccessPath.of(AccessPath.global(fn.module.name, name));
            }
            case "Attribute" -> {
                String symbol = staticSymbol(e.node("value"));
                if (symbol != null && act.an.index.module(symbol) != null) {
                    return AccessPath.of(AccessPath.global(symbol, e.str("attr")));
                }
                if (symbol != null && act.an.index.classInfo(symbol) != null) {
                    return AccessPath.of("@" + act.an.index.canonical(symbol)).then("." + e.str("attr"));
                }
                AccessPath base = pathOf(e.node("value"));
                return base == null ? null : base.then("." + e.str("attr"));
            }
            case "Subscript" -> {
                AccessPath base = pathOf(e.node("value"));
                return base == null ? null : base.then(itemKey(e.node("slice")));
            }
            default -> {
                return null;
            }
        }
    }

    /**
     * The field key of a subscript: constant keys are exact, anything else is any item (a negative index too: which
     * element it is depends on the length).
     */
    static String itemKey(PyNode slice) {
        if (slice == null) {
            return Value.ANY_ITEM;
        }
        if (slice.is("Constant")) {
            Object value = slice.raw("value");
            if (value instanceof String text) {
                return "[s:" + text + "]";
            }
            if (value instanceof Boolean flag) {
                return "[o:" + (flag ? "True" : "False") + "]";
            }
            if (value instanceof Number number && !(value instanceof Double)) {
                return "[i:" + number + "]";
            }
            if (value == null && slice.fieldsView().containsKey("value")) {
                return "[o:None]";
            }
        }
        return Value.ANY_ITEM;
    }
}
