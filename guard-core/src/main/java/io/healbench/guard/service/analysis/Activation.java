package io.healbench.guard.service.analysis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One activation of a function (or a module body) interpreted over abstract values: statements transform the
 * {@link State}, expressions evaluate to {@link Value}s, calls go to {@link Calls} (project code through
 * {@link Analysis#call}, library code through {@link CallModels}), which also checks every call of a protected
 * operation for heal sources in its key input. Control dependence is not tracked: both branches of a test run, and their states are joined.
 *
 * <p>An activation of the crashing function (or of a caller) starts unreachable and becomes reachable at its
 * {@link Injection}: the crash statement (or the call the program is inside), where the heal's sources (or the
 * callee's effects) enter. Loops around that point then run to a fixpoint, as after any other statement.
 */
final class Activation {

    /** How the injected state enters at the injection statement. */
    enum Mode {
        /** resume=skip: the statement did not complete; execution continues after it. */
        AFTER,
        /** resume=retry: the statement runs again. */
        BEFORE,
        /** resume=return (or skip at a return statement): the function returns {@code _return_}. */
        RETURN,
        /** A caller: the statement holding the call runs with the call's value overridden. */
        CALL
    }

    /** Where and how the injected state (sources or a callee's effects) enters this activation. */
    static final class Injection {
        final PyNode statement;
        final Mode mode;
        final Consumer<Activation> seed;
        final Map<PyNode, Value> overrides = new IdentityHashMap<>();

        Injection(PyNode statement, Mode mode, Consumer<Activation> seed) {
            this.statement = statement;
            this.mode = mode;
            this.seed = seed;
        }
    }

    static final String RETURN_SLOT = "_return_";
    private static final int MAX_LOOP_ROUNDS = 40;

    final Analysis an;
    final Calls calls = new Calls(this);
    final FunctionInfo fn;
    final String file;
    private final Injection injection;
    private final State closure;
    State state = State.bottom();
    private Value returned = Value.CLEAN;
    private final State exit = State.bottom();
    Value raised = Value.CLEAN;
    private final Deque<LoopFrame> loops = new ArrayDeque<>();
    private final Deque<TryFrame> tries = new ArrayDeque<>();
    /** Comprehension variables in scope: locals of the comprehension, not of the function. */
    private final Map<String, Integer> comprehension = new HashMap<>();

    private static final class LoopFrame {
        final State breaks = State.bottom();
        final State continues = State.bottom();
    }

    private static final class TryFrame {
        final State exceptional = State.bottom();
        Value raised = Value.CLEAN;
    }

    Activation(Analysis an, FunctionInfo fn, Injection injection, State closure) {
        this.an = an;
        this.fn = fn;
        this.file = fn.module.file;
        this.injection = injection;
        this.closure = closure;
    }

    // ================================================================ results

    void run(State entry) {
        state = entry;
        execBlock(fn.node.nodes("body"));
        exit.join(state);
    }

    /** What a call of this activation evaluates to: its return value, or a generator over what it yields. */
    Value result() {
        if (fn.generator) {
            return Value.typed("generator", Taint.NONE).with(Value.ANY_ITEM, returned);
        }
        return returned;
    }

    /** The parameters' objects at exit (every path joined): what the caller's arguments became. */
    Map<String, Value> parametersAtExit() {
        Map<String, Value> out = new LinkedHashMap<>();
        if (exit.isBottom()) {
            return out;
        }
        for (String parameter : fn.allParameters()) {
            if (!fn.rebound.contains(parameter)) {
                out.put(parameter, exit.get(parameter));
            }
        }
        return out;
    }

    // ================================================================ statements

    private void execBlock(List<PyNode> statements) {
        for (PyNode statement : statements) {
            if (statement != null) {
                execStatement(statement);
            }
        }
    }

    private boolean holdsInjection(PyNode statement) {
        if (injection == null || statement == injection.statement) {
            return false;
        }
        PyNode target = injection.statement;
        return statement.line() <= target.line() && target.line() <= statement.endLine();
    }

    private void execStatement(PyNode s) {
        an.tick();
        if (injection != null && s == injection.statement) {
            inject(s);
            return;
        }
        if (state.isBottom() && !holdsInjection(s)) {
            return;
        }
        dispatch(s);
    }

    private void dispatch(PyNode s) {
        exceptionalPoint();
        switch (s.type()) {
            case "Expr" -> eval(s.node("value"));
            case "Assign" -> {
                Value value = eval(s.node("value"));
                for (PyNode target : s.nodes("targets")) {
                    assign(target, value, s.node("value"));
                }
            }
            case "AnnAssign" -> {
                if (s.node("value") != null) {
                    assign(s.node("target"), eval(s.node("value")), s.node("value"));
                }
            }
            case "AugAssign" -> augAssign(s);
            case "Delete" -> s.nodes("targets").forEach(this::delete);
            case "Return" -> returnWith(eval(s.node("value")), s);
            case "If" -> execIf(s);
            case "For", "AsyncFor" -> execFor(s);
            case "While" -> execWhile(s);
            case "Try", "TryStar" -> execTry(s);
            case "With", "AsyncWith" -> execWith(s);
            case "Raise" -> {
                Value exception = eval(s.node("exc"));
                eval(s.node("cause"));
                raise(exception);
            }
            case "Assert" -> {
                calls.checkConditions(s.node("test"));
                eval(s.node("test"));
                eval(s.node("msg"));
            }
            case "Break" -> {
                if (!loops.isEmpty()) {
                    loops.peek().breaks.join(state);
                }
                state = State.bottom();
            }
            case "Continue" -> {
                if (!loops.isEmpty()) {
                    loops.peek().continues.join(state);
                }
                state = State.bottom();
            }
            case "Match" -> execMatch(s);
            case "Import", "ImportFrom" -> bindLocalImports(s);
            case "FunctionDef", "AsyncFunctionDef", "ClassDef" -> {
                if (!fn.isModuleBody()) {  // a module's own definitions are its bindings (ScopeBuilder)
                    bindName(s.str("name"), Value.symbol(fn.qualified() + ".<locals>." + s.str("name")));
                }
            }
            default -> { }  // Pass, Global, Nonlocal, TypeAlias
        }
        exceptionalPoint();
    }

    /** The injection statement: the heal's sources (or a callee's effects) enter here. */
    private void inject(PyNode s) {
        State before = state;
        state = State.empty();
        injection.seed.accept(this);
        State injected = state;
        switch (injection.mode) {
            case AFTER -> {
                state = before;
                if (!before.isBottom()) {
                    dispatch(s);
                }
                injected.join(state);
                state = injected;
            }
            case BEFORE, CALL -> {
                before.join(injected);
                state = before;
                dispatch(s);
            }
            case RETURN -> {
                returnWith(injected.get(RETURN_SLOT), s);
                state = before;
                if (!before.isBottom()) {
                    dispatch(s);
                }
            }
        }
        exceptionalPoint();
    }

    private void exceptionalPoint() {
        if (!tries.isEmpty() && !state.isBottom()) {
            tries.peek().exceptional.join(state);
        }
    }

    private void returnWith(Value value, PyNode at) {
        if (state.isBottom()) {
            return;
        }
        returned = returned.join(value.then(file, at.line(), at.col(), "returned from " + fn.name() + "()"));
        exit.join(state);
        state = State.bottom();
    }

    private void raise(Value exception) {
        if (!tries.isEmpty()) {
            TryFrame frame = tries.peek();
            frame.raised = frame.raised.join(exception);
            frame.exceptional.join(state);
        } else {
            raised = raised.join(exception);
            exit.join(state);
        }
        state = State.bottom();
    }

    private void execIf(PyNode s) {
        PyNode test = s.node("test");
        if (!state.isBottom()) {
            calls.checkConditions(test);
            eval(test);
        }
        Boolean constant = constantTruth(test);
        State entry = state.copy();
        if (!Boolean.FALSE.equals(constant) || holdsIn(s.nodes("body"))) {
            execBlock(s.nodes("body"));
        } else {
            state = State.bottom();
        }
        State afterBody = state;
        state = entry;
        if (!Boolean.TRUE.equals(constant) || holdsIn(s.nodes("orelse"))) {
            execBlock(s.nodes("orelse"));
        } else {
            state = State.bottom();
        }
        state.join(afterBody);
    }

    private boolean holdsIn(List<PyNode> block) {
        for (PyNode statement : block) {
            if (statement != null && (statement == (injection == null ? null : injection.statement) || holdsInjection(statement))) {
                return true;
            }
        }
        return false;
    }

    private static Boolean constantTruth(PyNode test) {
        if (test != null && test.is("Constant")) {
            Object value = test.raw("value");
            if (value == null || Boolean.FALSE.equals(value) || value instanceof Number n && n.doubleValue() == 0) {
                return Boolean.FALSE;
            }
            if (Boolean.TRUE.equals(value) || value instanceof Number) {
                return Boolean.TRUE;
            }
        }
        return null;
    }

    private void execFor(PyNode s) {
        LoopFrame loop = new LoopFrame();
        state = iterate(s, loop, () -> {
            Value iterable = eval(s.node("iter"));
            assign(s.node("target"), iterable.element().then(file, s.line(), s.col(), "taken from the loop's iterable"), null);
        });
        execBlock(s.nodes("orelse"));
        state.join(loop.breaks);
    }

    private void execWhile(PyNode s) {
        LoopFrame loop = new LoopFrame();
        PyNode test = s.node("test");
        State head = iterate(s, loop, () -> {
            calls.checkConditions(test);
            eval(test);
        });
        state = Boolean.TRUE.equals(constantTruth(test)) ? State.bottom() : head;
        execBlock(s.nodes("orelse"));
        state.join(loop.breaks);
    }

    /**
     * Runs a loop's header and body to a fixpoint of the state at the loop head (joined with every
     * {@code continue}), capped at MAX_LOOP_ROUNDS (then incomplete); returns the head state.
     */
    private State iterate(PyNode s, LoopFrame loop, Runnable header) {
        loops.push(loop);
        State head = state.copy();
        for (int round = 0; ; round++) {
            state = head.copy();
            if (!state.isBottom()) {
                header.run();
            }
            execBlock(s.nodes("body"));
            State next = head.copy();
            next.join(state);
            next.join(loop.continues);
            if (next.same(head)) {
                break;
            }
            head = next;
            if (round >= MAX_LOOP_ROUNDS) {
                an.incomplete(file, s, "loop", "the loop's state did not stabilise within " + MAX_LOOP_ROUNDS + " rounds");
                break;
            }
        }
        loops.pop();
        return head;
    }

    private void execTry(PyNode s) {
        TryFrame frame = new TryFrame();
        tries.push(frame);
        frame.exceptional.join(state);
        execBlock(s.nodes("body"));
        tries.pop();
        execBlock(s.nodes("orelse"));
        State normal = state;
        for (PyNode handler : s.nodes("handlers")) {
            state = frame.exceptional.copy();
            if (!state.isBottom()) {
                eval(handler.node("type"));
                if (handler.str("name") != null) {
                    bindName(handler.str("name"), frame.raised.then(file, handler.line(), handler.col(),
                            "caught as " + handler.str("name")));
                }
            }
            execBlock(handler.nodes("body"));
            normal.join(state);
        }
        List<PyNode> finalBody = s.nodes("finalbody");
        // The exception may also escape (no handler matches): it reaches the enclosing handlers through finally.
        state = frame.exceptional.copy();
        if (!finalBody.isEmpty()) {
            execBlock(finalBody);
        }
        if (!state.isBottom()) {
            propagate(state, frame.raised);
        }
        state = normal;
        execBlock(finalBody);
    }

    /** What a callee raises reaches the enclosing handlers, or leaves this activation. */
    void raisedByCall(Value exception) {
        if (exception.isClean()) {
            return;
        }
        if (!tries.isEmpty()) {
            tries.peek().raised = tries.peek().raised.join(exception);
        } else {
            raised = raised.join(exception);
        }
    }

    private void propagate(State exceptional, Value exception) {
        if (!tries.isEmpty()) {
            tries.peek().exceptional.join(exceptional);
            tries.peek().raised = tries.peek().raised.join(exception);
        } else {
            exit.join(exceptional);
            raised = raised.join(exception);
        }
    }

    private void execWith(PyNode s) {
        if (!state.isBottom()) {
            for (PyNode item : s.nodes("items")) {
                Value manager = eval(item.node("context_expr"));
                if (item.node("optional_vars") != null) {
                    assign(item.node("optional_vars"), manager, item.node("context_expr"));
                }
            }
        }
        execBlock(s.nodes("body"));
    }

    private void execMatch(PyNode s) {
        Value subject = state.isBottom() ? Value.CLEAN : eval(s.node("subject"));
        State entry = state.copy();
        State out = entry.copy();  // no case matched
        for (PyNode matchCase : s.nodes("cases")) {
            state = entry.copy();
            if (!state.isBottom()) {
                for (String name : NameCollector.patternNames(matchCase.node("pattern"))) {
                    bindName(name, subject);
                }
                eval(matchCase.node("guard"));
            }
            execBlock(matchCase.nodes("body"));
            out.join(state);
        }
        state = out;
    }

    private void bindLocalImports(PyNode s) {
        if (fn.isModuleBody()) {
            return;  // module-level imports are the module's bindings (ProjectIndex)
        }
        Map<String, String> bound = new HashMap<>();
        ScopeBuilder.bindImports(fn.module, s, bound);
        bound.forEach((name, qualified) -> bindName(name, Value.symbol(an.index.canonical(qualified))));
    }

    // ================================================================ assignment

    private void assign(PyNode target, Value value, PyNode valueExpression) {
        if (target == null || state.isBottom()) {
            return;
        }
        switch (target.type()) {
            case "Name" -> {
                String name = target.str("id");
                Value stepped = value.then(file, target.line(), target.col(), "assigned to " + name);
                AccessPath source = valueExpression == null ? null : pathOf(valueExpression);
                if (isLocal(name)) {
                    state.put(name, stepped);
                    AccessPath self = AccessPath.of(name);
                    dropAliases(self);
                    if (source != null && source.exact() && !source.equals(self)) {
                        state.aliases.put(name, source);
                    }
                } else {
                    writeGlobalName(name, stepped);
                }
            }
            case "Attribute", "Subscript" -> {
                PyNode base = target.node("value");
                Value owner = eval(base);
                String key;
                if (target.is("Attribute")) {
                    key = "." + target.str("attr");
                } else {
                    eval(target.node("slice"));
                    key = itemKey(target.node("slice"));
                    if ("os.environ".equals(owner.symbol)) {
                        calls.environment("__setitem__", List.of(eval(target.node("slice")), value), List.of(target.node("slice"), target), target);
                    }
                }
                AccessPath path = pathOf(base);
                if (path == null) {
                    if (!value.isClean() && owner.symbol == null) {
                        an.incomplete(file, target, "store into " + describe(base),
                                "the object written to is not a named location (a call's result, ...): later reads of it are not followed");
                    }
                    return;
                }
                AccessPath location = path.then(key);
                write(location, value.then(file, target.line(), target.col(), "stored into " + location.display()), false);
                if (valueExpression != null && valueExpression.is("Name") && isLocal(valueExpression.str("id")) && location.exact()) {
                    state.aliases.put(valueExpression.str("id"), location);
                }
            }
            case "Tuple", "List" -> {
                List<PyNode> elements = target.nodes("elts");
                boolean afterStar = false;
                for (int i = 0; i < elements.size(); i++) {
                    PyNode element = elements.get(i);
                    if (element.is("Starred")) {
                        afterStar = true;
                        assign(element.node("value"), Value.typed("list", Taint.NONE).with(Value.ANY_ITEM, value.item(Value.ANY_ITEM)), null);
                    } else {
                        assign(element, value.item(afterStar ? Value.ANY_ITEM : "[i:" + i + "]"), null);
                    }
                }
            }
            case "Starred" -> assign(target.node("value"), value, null);
            default -> eval(target);
        }
    }

    private void augAssign(PyNode s) {
        PyNode target = s.node("target");
        Value current = eval(target);
        Value operand = eval(s.node("value"));
        Value result = Value.of(current.deep().union(operand.deep()));
        if (current.type != null && (current.type.equals("list") || current.type.equals("dict") || current.type.equals("set"))) {
            result = current.withJoined(Value.ANY_ITEM, operand.element()).withTaint(Taint.NONE);
        } else if (current.type != null) {
            result = result.withType(current.type);
        }
        assign(target, result, null);
    }

    private void delete(PyNode target) {
        if (state.isBottom()) {
            return;
        }
        if (target.is("Name") && isLocal(target.str("id"))) {
            state.put(target.str("id"), Value.CLEAN);
            dropAliases(AccessPath.of(target.str("id")));
            return;
        }
        if (target.is("Subscript")) {
            Value owner = eval(target.node("value"));
            Value key = eval(target.node("slice"));
            if ("os.environ".equals(owner.symbol)) {
                calls.environment("__delitem__", List.of(key), List.of(target.node("slice")), target);
            }
        }
        if (target.isAny("Attribute", "Subscript")) {
            AccessPath path = pathOf(target);
            if (path != null && path.exact() && !path.isGlobal()) {
                write(path, Value.CLEAN, false);
            }
        }
    }

    private void bindName(String name, Value value) {
        if (isLocal(name)) {
            state.put(name, value);
            dropAliases(AccessPath.of(name));
        } else {
            writeGlobalName(name, value);
        }
    }

    /**
     * A module global bound by name: a weak update of the store other functions read; in the module's own body
     * also a strong one of its state (the body reads its globals in order, like locals).
     */
    private void writeGlobalName(String name, Value value) {
        if (fn.isModuleBody()) {
            state.locals.put(name, value);
        }
        write(AccessPath.of(AccessPath.global(fn.module.name, name)), value, false);
    }

    /** Writes a location, and the locations its must-aliases share it with. */
    void write(AccessPath path, Value value, boolean weak) {
        writeOnly(path, value, weak);
        if (path.isGlobal()) {
            return;
        }
        for (Map.Entry<String, AccessPath> alias : new ArrayList<>(state.aliases.entrySet())) {
            AccessPath local = AccessPath.of(alias.getKey());
            AccessPath target = alias.getValue();
            if (target.within(path)) {
                state.aliases.remove(alias.getKey());  // the aliased location itself was rebound
            } else if (path.within(target)) {
                writeOnly(path.rebase(target, local), value, weak);
            } else if (path.within(local) && !path.keys().isEmpty()) {
                writeOnly(path.rebase(local, target), value, weak);
            }
        }
    }

    private void writeOnly(AccessPath path, Value value, boolean weak) {
        boolean inexact = weak || !path.exact();
        if (path.isGlobal()) {
            an.globals.write(path, value);
            return;
        }
        Value root = state.get(path.root());
        state.put(path.root(), Locations.update(root, path.keys(), 0, value, inexact));
    }

    private void dropAliases(AccessPath rebound) {
        state.aliases.remove(rebound.root());
        state.aliases.entrySet().removeIf(alias -> alias.getValue().within(rebound));
    }

    /** The location an expression names ({@code x}, {@code self.a}, {@code d['k']}, {@code mod.G}), or null. */
    AccessPath pathOf(PyNode e) {
        if (e == null) {
            return null;
        }
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
                if (symbol != null && an.index.module(symbol) != null) {
                    return AccessPath.of(AccessPath.global(symbol, e.str("attr")));
                }
                if (symbol != null && an.index.classInfo(symbol) != null) {
                    return AccessPath.of("@" + an.index.canonical(symbol)).then("." + e.str("attr"));
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

    /** The field key of a subscript: constant keys are exact, anything else is any item. */
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
        if (slice.is("UnaryOp") && slice.node("op") != null && slice.node("op").is("USub")
                && slice.node("operand") != null && slice.node("operand").is("Constant")
                && slice.node("operand").raw("value") instanceof Number number && !(number instanceof Double)) {
            return Value.ANY_ITEM;  // a negative index: which element depends on the length
        }
        return Value.ANY_ITEM;
    }

    // ================================================================ names

    boolean isLocal(String name) {
        return comprehension.containsKey(name) || fn.isLocal(name) || RETURN_SLOT.equals(name) && !fn.isModuleBody();
    }

    boolean enclosingLocal(String name) {
        for (FunctionInfo outer = fn.parent; outer != null; outer = outer.parent) {
            if (outer.isLocal(name)) {
                return true;
            }
        }
        return false;
    }

    private Value readName(String name) {
        if (isLocal(name)) {
            Value value = state.get(name);
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
                    return Value.symbol(an.index.canonical(fn.imports.get(name)));
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
            return closure == null ? an.globals.get(fn.cellRoot(name)) : closure.get(name);
        }
        Value stored = fn.isModuleBody() && state.locals.containsKey(name) ? state.locals.get(name)
                : an.globals.get(AccessPath.global(fn.module.name, name));
        String bound = fn.module.bindings.get(name);
        if (bound != null) {
            Value symbol = Value.symbol(an.index.canonical(bound));
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
        if (e.is("Name")) {
            String name = e.str("id");
            if (isLocal(name)) {
                Value value = state.get(name);
                if (value.symbol != null && value.type == null) {
                    return value.symbol;
                }
                if (fn.imports.containsKey(name)) {
                    return an.index.canonical(fn.imports.get(name));
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
                return an.index.canonical(bound);
            }
            return Builtins.NAMES.contains(name) && !fn.module.assigned.contains(name) ? name : null;
        }
        if (e.is("Attribute")) {
            String base = staticSymbol(e.node("value"));
            if (base == null) {
                return null;
            }
            String qualified = an.index.canonical(base + "." + e.str("attr"));
            String module = an.index.projectModuleOf(qualified);
            if (module != null && !module.equals(qualified)) {
                // A project module's data global is a location, not a symbol.
                String rest = qualified.substring(module.length() + 1);
                ModuleScope scope = an.index.module(module);
                if (!rest.contains(".") && scope.assigned.contains(rest) && !scope.bindings.containsKey(rest)) {
                    return null;
                }
            }
            return qualified;
        }
        return null;
    }

    // ================================================================ expressions

    Value eval(PyNode e) {
        if (e == null || state.isBottom()) {
            return Value.CLEAN;
        }
        if (injection != null && !injection.overrides.isEmpty()) {
            Value overridden = injection.overrides.get(e);
            if (overridden != null) {
                return overridden;
            }
        }
        switch (e.type()) {
            case "Constant" -> {
                return CallModels.constant(e.raw("value"));
            }
            case "Name" -> {
                return readName(e.str("id"));
            }
            case "Attribute" -> {
                return readAttribute(e);
            }
            case "Subscript" -> {
                Value base = eval(e.node("value"));
                PyNode slice = e.node("slice");
                eval(slice);
                if (slice != null && slice.is("Slice")) {
                    return base.withTaint(Taint.NONE);
                }
                if ("os.environ".equals(base.symbol)) {
                    return Value.CLEAN;
                }
                Value item = base.item(itemKey(slice));
                return "str".equals(base.type) ? item.withType("str") : item;
            }
            case "BinOp" -> {
                Value left = eval(e.node("left"));
                Value right = eval(e.node("right"));
                Value result = Value.of(left.deep().union(right.deep()));
                String op = e.node("op") == null ? "" : e.node("op").type();
                if ("pathlib.Path".equals(left.type) && op.equals("Div") || "pathlib.Path".equals(right.type) && op.equals("Div")) {
                    return result.withType("pathlib.Path");
                }
                if ("str".equals(left.type) || "str".equals(right.type) && op.equals("Add")) {
                    return result.withType("str");
                }
                return result;
            }
            case "BoolOp" -> {
                Value joined = Value.CLEAN;
                for (PyNode operand : e.nodes("values")) {
                    joined = joined.join(eval(operand));
                }
                return joined;
            }
            case "UnaryOp" -> {
                return eval(e.node("operand")).flat();
            }
            case "Compare" -> {
                Taint all = eval(e.node("left")).deep();
                for (PyNode comparator : e.nodes("comparators")) {
                    all = all.union(eval(comparator).deep());
                }
                return Value.typed("bool", all);
            }
            case "IfExp" -> {
                calls.checkConditions(e.node("test"));
                eval(e.node("test"));
                return eval(e.node("body")).join(eval(e.node("orelse")));
            }
            case "Call" -> {
                return calls.call(e);
            }
            case "JoinedStr" -> {
                Taint all = Taint.NONE;
                for (PyNode part : e.nodes("values")) {
                    all = all.union(eval(part).deep());
                }
                return Value.typed("str", all.then(file, e.line(), e.col(), "formatted into an f-string"));
            }
            case "FormattedValue" -> {
                return Value.of(eval(e.node("value")).deep().union(eval(e.node("format_spec")).deep()));
            }
            case "List", "Tuple", "Set" -> {
                return display(e);
            }
            case "Dict" -> {
                return dictDisplay(e);
            }
            case "ListComp", "SetComp", "GeneratorExp", "DictComp" -> {
                return comprehension(e);
            }
            case "NamedExpr" -> {
                Value value = eval(e.node("value"));
                assign(e.node("target"), value, e.node("value"));
                return value;
            }
            case "Starred", "Await" -> {
                return eval(e.node("value"));
            }
            case "Yield" -> {
                returned = returned.join(eval(e.node("value")).then(file, e.line(), e.col(), "yielded from " + fn.name() + "()"));
                return Value.CLEAN;
            }
            case "YieldFrom" -> {
                returned = returned.join(eval(e.node("value")).element());
                return Value.CLEAN;
            }
            case "Lambda" -> {
                return Value.symbol("<lambda>");
            }
            default -> {
                Taint all = Taint.NONE;
                for (PyNode child : NameCollector.children(e)) {
                    all = all.union(eval(child).deep());
                }
                return Value.of(all);
            }
        }
    }

    private Value readAttribute(PyNode e) {
        String symbol = staticSymbol(e);
        String attr = e.str("attr");
        if (symbol != null) {
            String module = an.index.projectModuleOf(symbol);
            if (module == null || module.equals(symbol) || an.index.function(symbol) != null || an.index.classInfo(symbol) != null) {
                return Value.symbol(symbol);
            }
        }
        AccessPath path = pathOf(e);
        if (path != null && path.isGlobal()) {
            return Locations.read(an.globals.get(path.root()), path.keys());
        }
        Value base = eval(e.node("value"));
        if (base.type != null) {
            ClassInfo klass = an.index.classInfo(base.type);
            if (klass != null) {
                FunctionInfo member = an.index.lookup(klass, attr);
                if (member != null && member.kind == FunctionInfo.Kind.PROPERTY) {
                    return calls.callFunctions(List.of(member), calls.shapeOf(e, base, pathOf(e.node("value")), List.of(), List.of()), true)
                            .join(base.attr(attr));
                }
                if (member != null) {
                    return Value.symbol(member.qualified());
                }
            }
            Value attribute = base.attr(attr);
            String type = CallModels.attributeType(base.type, attr);
            return type == null ? attribute : attribute.withType(type);
        }
        return base.attr(attr);
    }

    private Value display(PyNode e) {
        String type = e.is("List") ? "list" : e.is("Tuple") ? "tuple" : "set";
        Value result = Value.typed(type, Taint.NONE);
        boolean afterStar = e.is("Set");
        List<PyNode> elements = e.nodes("elts");
        for (int i = 0; i < elements.size(); i++) {
            PyNode element = elements.get(i);
            if (element.is("Starred")) {
                afterStar = true;
                result = result.withJoined(Value.ANY_ITEM, eval(element.node("value")).element());
            } else if (afterStar) {
                result = result.withJoined(Value.ANY_ITEM, eval(element));
            } else {
                result = result.with("[i:" + i + "]", eval(element));
            }
        }
        return result;
    }

    private Value dictDisplay(PyNode e) {
        Value result = Value.typed("dict", Taint.NONE);
        List<PyNode> keys = e.nodes("keys");
        List<PyNode> values = e.nodes("values");
        for (int i = 0; i < values.size(); i++) {
            PyNode key = i < keys.size() ? keys.get(i) : null;
            Value value = eval(values.get(i));
            if (key == null) {
                for (Map.Entry<String, Value> field : value.fields.entrySet()) {
                    result = result.withJoined(field.getKey(), field.getValue());
                }
                result = result.withTaint(value.taint);
                continue;
            }
            Value keyValue = eval(key);
            if (!keyValue.isClean()) {
                result = result.withJoined(Value.KEYS, keyValue);
            }
            String field = itemKey(key);
            result = field.equals(Value.ANY_ITEM) ? result.withJoined(field, value) : result.with(field, value);
        }
        return result;
    }

    private Value comprehension(PyNode e) {
        List<String> bound = new ArrayList<>();
        for (PyNode generator : e.nodes("generators")) {
            Value iterable = eval(generator.node("iter"));
            for (String name : NameCollector.boundNames(generator.node("target"))) {
                comprehension.merge(name, 1, Integer::sum);
                bound.add(name);
            }
            Map<String, Value> shadowed = new HashMap<>();
            for (String name : bound) {
                shadowed.putIfAbsent(name, state.get(name));
            }
            assign(generator.node("target"), iterable.element(), null);
            for (PyNode condition : generator.nodes("ifs")) {
                eval(condition);
            }
        }
        Value result;
        if (e.is("DictComp")) {
            Value key = eval(e.node("key"));
            Value value = eval(e.node("value"));
            result = Value.typed("dict", Taint.NONE).with(Value.ANY_ITEM, value).with(Value.KEYS, key);
        } else {
            result = Value.typed(e.is("SetComp") ? "set" : e.is("ListComp") ? "list" : "generator", Taint.NONE)
                    .with(Value.ANY_ITEM, eval(e.node("elt")));
        }
        for (String name : bound) {
            comprehension.computeIfPresent(name, (k, count) -> count > 1 ? count - 1 : null);
            if (!comprehension.containsKey(name) && !fn.isLocal(name)) {
                state.put(name, Value.CLEAN);
            }
        }
        return result;
    }

    static String describe(PyNode e) {
        if (e == null) {
            return "?";
        }
        return switch (e.type()) {
            case "Name" -> e.str("id");
            case "Attribute" -> describe(e.node("value")) + "." + e.str("attr");
            case "Call" -> describe(e.node("func")) + "(...)";
            case "Subscript" -> describe(e.node("value")) + "[...]";
            default -> e.type().toLowerCase();
        };
    }
}
