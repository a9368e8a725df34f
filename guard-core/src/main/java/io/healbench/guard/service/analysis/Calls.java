package io.healbench.guard.service.analysis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The calls of one {@link Activation}: what a call resolves to (project functions, methods along the MRO, classes,
 * library functions, module tables, bound-method aliases, dynamic callees), how arguments bind to parameters and
 * callees' effects come back, and the checks of every call against the protected operations of the policy.
 */
final class Calls {

    private static final int MAX_CANDIDATES = 10;

    final Activation act;

    Calls(Activation act) {
        this.act = act;
    }


    CallShape shapeOf(PyNode node, Value receiver, AccessPath receiverPath, List<Value> args, List<PyNode> exprs) {
        return new CallShape(node, receiver, receiverPath, args, exprs, Map.of(), Map.of(), null, null);
    }

    private CallShape arguments(PyNode call, Value receiver, AccessPath receiverPath) {
        List<Value> args = new ArrayList<>();
        List<PyNode> exprs = new ArrayList<>();
        Value starArgs = null;
        for (PyNode arg : call.nodes("args")) {
            if (arg.is("Starred")) {
                Value spread = act.eval(arg.node("value"));
                starArgs = (starArgs == null ? Value.CLEAN : starArgs).join(spread.element().withTaint(spread.taint));
            } else if (starArgs != null) {
                starArgs = starArgs.join(act.eval(arg));  // positions after a starred argument are unknown
            } else {
                args.add(act.eval(arg));
                exprs.add(arg);
            }
        }
        Map<String, Value> keywords = new LinkedHashMap<>();
        Map<String, PyNode> keywordExprs = new LinkedHashMap<>();
        Value starKeywords = null;
        for (PyNode keyword : call.nodes("keywords")) {
            Value value = act.eval(keyword.node("value"));
            if (keyword.str("arg") == null) {
                starKeywords = (starKeywords == null ? Value.CLEAN : starKeywords).join(value.item(Value.ANY_ITEM).withTaint(value.deep()));
            } else {
                keywords.put(keyword.str("arg"), value);
                keywordExprs.put(keyword.str("arg"), keyword.node("value"));
            }
        }
        return new CallShape(call, receiver, receiverPath, args, exprs, keywords, keywordExprs, starArgs, starKeywords);
    }

    Value call(PyNode call) {
        PyNode func = call.node("func");
        // super().m(...): the next definition of m along the enclosing class's bases.
        if (func.is("Attribute") && func.node("value").is("Call") && func.node("value").node("func").is("Name")
                && "super".equals(func.node("value").node("func").str("id")) && act.fn.owner != null) {
            Value self = act.fn.receiver() == null ? Value.CLEAN : act.state.get(act.fn.receiver());
            CallShape shape = arguments(call, self, act.fn.receiver() == null ? null : AccessPath.of(act.fn.receiver()));
            List<ClassInfo> order = act.an.index.mro(act.fn.owner);
            for (ClassInfo klass : order.subList(1, order.size())) {
                FunctionInfo method = klass.methods.get(func.str("attr"));
                if (method != null) {
                    return callFunctions(List.of(method), shape, true);
                }
            }
            return CallModels.external(this, "super." + func.str("attr"), shape);
        }
        String symbol = act.staticSymbol(func);
        if (symbol != null) {
            return callResolved(symbol, arguments(call, null, null), func);
        }
        if (func.is("Attribute")) {
            PyNode base = func.node("value");
            Value receiver = act.eval(base);
            AccessPath receiverPath = act.pathOf(base);
            CallShape shape = arguments(call, receiver, receiverPath);
            return callMethod(func.str("attr"), receiver, shape, base);
        }
        Value callee = act.eval(func);
        CallShape shape = arguments(call, null, null);
        if (callee.symbol != null && callee.type == null) {
            return callResolved(callee.symbol, shape, null);
        }
        return dynamicCall(callee, shape, func);
    }

    /** A call of a module-level name, a class, a library function, or {@code Class.method}. */
    private Value callResolved(String symbol, CallShape shape, PyNode func) {
        FunctionInfo function = act.an.index.function(symbol);
        if (function != null) {
            // Class.method(obj, ...): unbound, the first argument is self.
            boolean unbound = function.owner != null && function.kind == FunctionInfo.Kind.METHOD && func != null && func.is("Attribute");
            if (function.kind == FunctionInfo.Kind.CLASS_METHOD) {
                return callFunctions(List.of(function), withReceiver(shape, Value.symbol(function.owner.qualified()), null), true);
            }
            return callFunctions(List.of(function), shape, !unbound && function.owner != null && function.receiver() != null
                    && shape.receiver() != null);
        }
        ClassInfo klass = act.an.index.classInfo(symbol);
        if (klass != null) {
            return construct(klass, shape);
        }
        if (act.an.index.isProject(symbol) && !shape.all().isEmpty()) {
            act.an.incomplete(act.file, shape.node(), "call of " + symbol,
                    "a project name the exported modules do not define receives a heal-derived value");
        }
        checkSinks(act.an.policy.named(symbol), shape, ProtectionPolicy.signature(symbol));
        return CallModels.external(this, symbol, shape);
    }

    static CallShape withReceiver(CallShape shape, Value receiver, AccessPath path) {
        return new CallShape(shape.node(), receiver, path, shape.args(), shape.argExprs(), shape.keywords(), shape.keywordExprs(),
                shape.starArgs(), shape.starKeywords());
    }

    Value callMethod(String method, Value receiver, CallShape shape, PyNode base) {
        if (receiver.symbol != null && receiver.type == null) {
            return callResolved(act.an.index.canonical(receiver.symbol + "." + method), shape, null);
        }
        if ("os.environ".equals(receiver.symbol)) {
            return Value.CLEAN;
        }
        if (receiver.type != null) {
            ClassInfo klass = act.an.index.classInfo(receiver.type);
            if (klass != null) {
                FunctionInfo found = act.an.index.lookup(klass, method);
                if (found != null) {
                    List<FunctionInfo> targets = new ArrayList<>();
                    targets.add(found);
                    // On self, an override in a subclass may be what runs.
                    if (base != null && base.is("Name") && base.str("id").equals(act.fn.receiver())) {
                        targets.addAll(act.an.index.overrides(klass, method));
                    }
                    return callFunctions(targets.subList(0, Math.min(targets.size(), MAX_CANDIDATES + 1)), shape, true);
                }
            }
            String qualified = receiver.type + "." + method;
            checkSinks(act.an.policy.named(qualified), shape, ProtectionPolicy.signature(qualified));
            return CallModels.external(this, qualified, shape);
        }
        // A receiver of unknown type: a library object, or any project class defining the method.
        boolean byName = CallModels.identifiesOperation(method);
        if (byName) {
            checkSinks(act.an.policy.methodsNamed(method, act.an.index), shape, null);
        }
        List<FunctionInfo> candidates = CallModels.isCommonMethod(method) ? List.of() : act.an.index.methodsNamed(method);
        if (candidates.isEmpty()) {
            return CallModels.external(this, "?." + method, shape);
        }
        if (candidates.size() > MAX_CANDIDATES) {
            if (!shape.all().isEmpty()) {
                act.an.incomplete(act.file, shape.node(), "method call ." + method + "() on an object of unknown type",
                        candidates.size() + " project methods have this name; none was followed");
            }
            return CallModels.external(this, "?." + method, shape);
        }
        // The project defines it: the call is taken to reach one of those definitions (whose own protected
        // operations count only when the name says which).
        return callFunctions(candidates, shape, true, byName);
    }

    private Value dynamicCall(Value callee, CallShape shape, PyNode func) {
        // A local bound to a method of an object (append = lines.append): that method call.
        if (func.is("Name") && act.isLocal(func.str("id")) && act.state.aliases.containsKey(func.str("id"))) {
            AccessPath bound = act.state.aliases.get(func.str("id"));
            List<String> keys = bound.keys();
            if (!keys.isEmpty() && keys.get(keys.size() - 1).startsWith(".")) {
                AccessPath owner = new AccessPath(bound.root(), keys.subList(0, keys.size() - 1));
                Value receiver = owner.isGlobal() ? Locations.read(act.an.globals.get(owner.root()), owner.keys())
                        : Locations.read(act.state.get(owner.root()), owner.keys());
                return callMethod(keys.get(keys.size() - 1).substring(1), receiver, withReceiver(shape, receiver, owner), null);
            }
        }
        // A local whose only bindings are `name = obj.method`, bound before the analysed part began.
        if (func.is("Name") && act.isLocal(func.str("id")) && act.fn.methodAlias(func.str("id")) != null) {
            PyNode method = act.fn.methodAlias(func.str("id"));
            Value receiver = act.eval(method.node("value"));
            return callMethod(method.str("attr"), receiver, withReceiver(shape, receiver, act.pathOf(method.node("value"))),
                    method.node("value"));
        }
        // A module global (or an item of one) defined only at module level: what its definitions refer to.
        Value tabled = tableCall(func, shape);
        if (tabled != null) {
            return tabled;
        }
        Taint all = shape.all().union(callee.deep());
        if (!all.isEmpty()) {
            act.an.incomplete(act.file, shape.node(), "dynamic call " + ExpressionEvaluator.describe(func) + "(...)",
                    "the callee is a value the analysis cannot resolve, and it receives or is a heal-derived value");
        }
        return Value.of(all);
    }

    /**
     * A call through a module global such as {@code _decoders[kind](text)} or {@code _splitter(text)}: the project
     * functions and classes its module-level definitions name are the candidates; definitions naming none are
     * library callables (a compiled pattern's method, ...). Null when the callee is not such a global.
     */
    private Value tableCall(PyNode func, CallShape shape) {
        PyNode root = func;
        while (root.isAny("Subscript", "Attribute")) {
            root = root.node("value");
        }
        if (!root.is("Name") || act.isLocal(root.str("id")) || act.enclosingLocal(root.str("id"))) {
            return null;
        }
        String name = root.str("id");
        ModuleScope scope = act.fn.module;
        List<PyNode> definitions = scope.definitions.get(name);
        if (definitions == null || scope.redefined.contains(name)) {
            return null;
        }
        List<FunctionInfo> functions = new ArrayList<>();
        List<ClassInfo> classes = new ArrayList<>();
        for (PyNode definition : definitions) {
            for (PyNode part : expressionsIn(definition)) {
                String qualified = part.isAny("Name", "Attribute") ? ScopeBuilder.dotted(part, scope.bindings, scope.name) : null;
                FunctionInfo function = qualified == null ? null : act.an.index.function(qualified);
                ClassInfo klass = qualified == null ? null : act.an.index.classInfo(qualified);
                if (function != null && !functions.contains(function)) {
                    functions.add(function);
                } else if (klass != null && !classes.contains(klass)) {
                    classes.add(klass);
                }
            }
        }
        if (functions.size() + classes.size() > MAX_CANDIDATES) {
            return null;
        }
        Value result = functions.isEmpty() && classes.isEmpty() ? CallModels.external(this, "<library callable>", shape)
                : callFunctions(functions, shape, false);
        for (ClassInfo klass : classes) {
            result = result.join(construct(klass, shape));
        }
        return result;
    }

    /** Calls of project functions (several candidates: joined), with the sink check of project operations. */
    Value callFunctions(List<FunctionInfo> targets, CallShape shape, boolean bound) {
        return callFunctions(targets, shape, bound, true);
    }

    private Value callFunctions(List<FunctionInfo> targets, CallShape shape, boolean bound, boolean checkOperations) {
        Value result = Value.CLEAN;
        for (FunctionInfo target : targets) {
            List<String> parameters = target.positional;
            boolean receiverBound = bound && target.receiver() != null && shape.receiver() != null;
            List<String> signature = receiverBound || target.receiver() == null ? parameters.subList(target.receiver() == null ? 0 : 1, parameters.size())
                    : parameters.subList(1, parameters.size());
            CallShape sinkShape = receiverBound || target.receiver() == null ? shape : unboundShape(shape);
            if (checkOperations) {
                checkSinks(act.an.policy.named(target.qualified()), sinkShape, signature);
            }
            Map<String, AccessPath> paths = new HashMap<>();
            Map<String, Value> values = bind(target, shape, receiverBound, paths);
            State enclosing = target.parent != null && target.parent == act.fn ? act.state.copy() : null;
            Analysis.Summary summary = act.an.call(target, values, enclosing, act.file, shape.node());
            applyEffects(target, summary, paths, values, shape.node());
            act.raisedByCall(summary.raised());
            result = result.join(summary.returned().then(act.file, shape.node().line(), shape.node().col(),
                    "result of " + target.qualified() + "()"));
        }
        return result;
    }

    /** Class.method(obj, a): the key input index does not count obj. */
    private static CallShape unboundShape(CallShape shape) {
        if (shape.args().isEmpty()) {
            return shape;
        }
        return new CallShape(shape.node(), shape.args().get(0), null, shape.args().subList(1, shape.args().size()),
                shape.argExprs().subList(1, shape.argExprs().size()), shape.keywords(), shape.keywordExprs(), shape.starArgs(),
                shape.starKeywords());
    }

    private Value construct(ClassInfo klass, CallShape shape) {
        FunctionInfo init = act.an.index.lookup(klass, "__init__");
        Value fresh = Value.typed(klass.qualified(), Taint.NONE);
        if (init == null) {
            // No project __init__ (a dataclass, a library base): the arguments may end up anywhere in the object.
            return Value.typed(klass.qualified(), shape.all());
        }
        CallShape withSelf = withReceiver(shape, fresh, null);
        checkSinks(act.an.policy.named(klass.qualified() + ".__init__"), withSelf,
                init.positional.subList(Math.min(1, init.positional.size()), init.positional.size()));
        Map<String, AccessPath> paths = new HashMap<>();
        Map<String, Value> values = bind(init, withSelf, true, paths);
        Analysis.Summary summary = act.an.call(init, values, null, act.file, shape.node());
        applyEffects(init, summary, paths, values, shape.node());
        Value self = summary.paramsOut().getOrDefault(init.receiver(), values.get(init.receiver()));
        return (self == null ? fresh : self).withType(klass.qualified());
    }

    /** Parameter values for a call (and which caller locations they are, for effects). */
    Map<String, Value> bind(FunctionInfo target, CallShape shape, boolean receiverBound, Map<String, AccessPath> paths) {
        Map<String, Value> values = new LinkedHashMap<>();
        List<String> positional = target.positional;
        int next = 0;
        String where = " of " + target.qualified() + "()";
        if (target.receiver() != null) {
            if (receiverBound) {
                Value self = shape.receiver();
                if (self.type == null && target.owner != null && target.kind != FunctionInfo.Kind.CLASS_METHOD) {
                    self = self.withType(target.owner.qualified());
                }
                values.put(positional.get(0), self);
                if (shape.receiverPath() != null) {
                    paths.put(positional.get(0), shape.receiverPath());
                }
                next = 1;
            } else if (target.owner != null && shape.args().isEmpty()) {
                values.put(positional.get(0), Value.typed(target.owner.qualified(), Taint.NONE));
                next = 1;
            }
        }
        Value vararg = Value.typed("tuple", Taint.NONE);
        for (int i = 0; i < shape.args().size(); i++) {
            Value arg = shape.args().get(i);
            PyNode expr = shape.argExprs().get(i);
            if (next < positional.size()) {
                String parameter = positional.get(next++);
                values.put(parameter, arg.then(act.file, expr.line(), expr.col(), "passed as " + parameter + where));
                AccessPath path = act.pathOf(expr);
                if (path != null) {
                    paths.put(parameter, path);
                }
            } else {
                vararg = vararg.withJoined(Value.ANY_ITEM, arg);
            }
        }
        Value kwarg = Value.typed("dict", Taint.NONE);
        for (Map.Entry<String, Value> keyword : shape.keywords().entrySet()) {
            String name = keyword.getKey();
            PyNode expr = shape.keywordExprs().get(name);
            Value value = keyword.getValue().then(act.file, expr.line(), expr.col(), "passed as " + name + where);
            if (positional.contains(name) || target.keywordOnly.contains(name)) {
                values.put(name, value);
                AccessPath path = act.pathOf(expr);
                if (path != null) {
                    paths.put(name, path);
                }
            } else {
                kwarg = kwarg.with("[s:" + name + "]", value);
            }
        }
        for (Value spread : new Value[] {shape.starArgs(), shape.starKeywords()}) {
            if (spread != null) {
                Value stepped = spread.then(act.file, shape.node().line(), shape.node().col(), "unpacked into the parameters" + where);
                for (String parameter : target.allParameters()) {
                    if (!parameter.equals(target.receiver()) || !receiverBound) {
                        values.merge(parameter, stepped, Value::join);
                    }
                }
            }
        }
        if (target.vararg != null) {
            values.merge(target.vararg, vararg, Value::join);
        }
        if (target.kwarg != null) {
            values.merge(target.kwarg, kwarg, Value::join);
        }
        return values;
    }

    /** Writes a callee's effects on its parameters' objects back to the caller's locations. */
    private void applyEffects(FunctionInfo target, Analysis.Summary summary, Map<String, AccessPath> paths,
                              Map<String, Value> passed, PyNode at) {
        for (Map.Entry<String, AccessPath> entry : paths.entrySet()) {
            Value out = summary.paramsOut().get(entry.getKey());
            Value in = passed.get(entry.getKey());
            if (out == null || in != null && out.same(in)) {
                continue;
            }
            act.write(entry.getValue(), out.then(act.file, at.line(), at.col(), "changed by " + target.qualified() + "()"), false);
        }
    }

    /** Seeds a caller's injected state with the callee's effects on the call's arguments (see Driver). */
    void applyCallEffects(PyNode call, FunctionInfo callee, Map<String, Value> parametersOut) {
        if (call == null || !call.is("Call")) {
            return;
        }
        PyNode func = call.node("func");
        AccessPath receiverPath = func.is("Attribute") && act.staticSymbol(func) == null ? act.pathOf(func.node("value")) : null;
        List<Value> args = new ArrayList<>();
        List<PyNode> exprs = new ArrayList<>();
        for (PyNode arg : call.nodes("args")) {
            if (arg.is("Starred")) {
                break;
            }
            args.add(Value.CLEAN);
            exprs.add(arg);
        }
        Map<String, Value> keywords = new LinkedHashMap<>();
        Map<String, PyNode> keywordExprs = new LinkedHashMap<>();
        for (PyNode keyword : call.nodes("keywords")) {
            if (keyword.str("arg") != null) {
                keywords.put(keyword.str("arg"), Value.CLEAN);
                keywordExprs.put(keyword.str("arg"), keyword.node("value"));
            }
        }
        CallShape shape = new CallShape(call, receiverPath == null ? null : Value.CLEAN, receiverPath, args, exprs, keywords,
                keywordExprs, null, null);
        Map<String, AccessPath> paths = new HashMap<>();
        bind(callee, shape, receiverPath != null, paths);
        for (Map.Entry<String, AccessPath> entry : paths.entrySet()) {
            Value out = parametersOut.get(entry.getKey());
            if (out != null && !out.isTrivial()) {
                act.write(entry.getValue(), out.then(act.file, call.line(), call.col(), "changed by " + callee.qualified() + "()"), false);
            }
        }
    }

    // ================================================================ sinks

    /** Checks a call against protected operations: a heal source in a checked input is the finding. */
    void checkSinks(List<ProtectionPolicy.Operation> operations, CallShape shape, List<String> signature) {
        for (ProtectionPolicy.Operation op : operations) {
            if (!SinkMatcher.applies(op, shape, signature)) {
                continue;
            }
            if (!op.hasKeyInput()) {
                Taint any = anySource();
                if (!any.isEmpty()) {
                    act.an.found(op, "(no key input: every call after a heal counts)", any.then(act.file, shape.node().line(),
                            shape.node().col(), "reached " + op.op() + "()"), act.file, shape.node());
                }
                continue;
            }
            for (SinkMatcher.Input input : SinkMatcher.inputs(op, shape, signature)) {
                Taint taint = input.value().deep();
                if (!taint.isEmpty()) {
                    act.an.found(op, input.name(), taint.then(act.file, shape.node().line(), shape.node().col(),
                            "key input " + input.name() + " of " + op.op() + "()"), act.file, shape.node());
                }
            }
        }
    }

    /** The heal's sources, as a flow of one step: what a protected operation without key input is charged with. */
    private Taint anySource() {
        return act.an.anySource;
    }


    /** os.environ[k] = v / del os.environ[k]: the environment operations of the policy. */
    void environment(String method, List<Value> args, List<PyNode> exprs, PyNode at) {
        CallShape shape = new CallShape(at, null, null, args, exprs, Map.of(), Map.of(), null, null);
        String op = "os.environ." + method;
        checkSinks(act.an.policy.named(op), shape, ProtectionPolicy.signature(op));
    }

    /** Declared check conditions read in a branch test: a heal source in one is a finding. */
    void checkConditions(PyNode test) {
        if (test == null || act.an.policy.checks().isEmpty() || act.state.isBottom()) {
            return;
        }
        for (PyNode part : expressionsIn(test)) {
            String text = CheckText.of(part);
            if (text == null) {
                continue;
            }
            for (ProtectionPolicy.Check check : act.an.policy.checks()) {
                if ((text.equals(check.check()) || text.endsWith("." + check.check()))
                        && (check.module() == null || check.module().equals(act.fn.module.name))) {
                    Taint taint = act.eval(part).deep();
                    if (!taint.isEmpty()) {
                        ProtectionPolicy.Operation asOperation = new ProtectionPolicy.Operation("check " + check.check(),
                                check.category(), check.check(), null, List.of(), null);
                        act.an.found(asOperation, check.check(), taint.then(act.file, part.line(), part.col(),
                                "read by the check condition " + check.check()), act.file, part);
                    }
                }
            }
        }
    }

    private static List<PyNode> expressionsIn(PyNode e) {
        List<PyNode> all = new ArrayList<>();
        Deque<PyNode> work = new ArrayDeque<>();
        work.push(e);
        while (!work.isEmpty()) {
            PyNode node = work.pop();
            all.add(node);
            if (!node.isAny("Lambda", "ListComp", "SetComp", "DictComp", "GeneratorExp")) {
                NameCollector.children(node).forEach(work::push);
            }
        }
        return all;
    }

    // ================================================================ for CallModels

    void incomplete(PyNode at, String construct, String reason) {
        act.an.incomplete(act.file, at, construct, reason);
    }

    /** A project function a library call will call back (a key=, a map() function), or null. */
    FunctionInfo callback(Value value) {
        return value.symbol == null || value.type != null ? null : act.an.index.function(value.symbol);
    }

    Value callBack(FunctionInfo function, Value argument, PyNode at) {
        List<Value> args = new ArrayList<>();
        List<PyNode> exprs = new ArrayList<>();
        int count = Math.max(1, function.positional.size() - (function.receiver() == null ? 0 : 1));
        for (int i = 0; i < count; i++) {
            args.add(argument);
            exprs.add(at);
        }
        CallShape shape = new CallShape(at, null, null, args, exprs, Map.of(), Map.of(), null, null);
        return callFunctions(List.of(function), shape, false);
    }
}
