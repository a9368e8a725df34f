package io.healbench.guard.service.analysis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The expressions of one {@link Activation}, evaluated to abstract {@link Value}s in its current state: operators
 * join their operands' taint, displays and comprehensions build containers, attributes and items read fields, and
 * calls go to {@link Calls}.
 */
final class ExpressionEvaluator {

    private final Activation act;
    /**
     * Values that replace what an expression would evaluate to: in a caller, the call the program is inside returns
     * what the callee's activation computed.
     */
    private final Map<PyNode, Value> overrides;

    ExpressionEvaluator(Activation act, Map<PyNode, Value> overrides) {
        this.act = act;
        this.overrides = overrides;
    }

    Value eval(PyNode e) {
        if (e == null || act.state.isBottom()) {
            return Value.CLEAN;
        }
        if (!overrides.isEmpty()) {
            Value overridden = overrides.get(e);
            if (overridden != null) {
                return overridden;
            }
        }
        switch (e.type()) {
            case "Constant" -> {
                return CallModels.constant(e.raw("value"));
            }
            case "Name" -> {
                return act.names.readName(e.str("id"));
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
                Value item = base.item(NameResolver.itemKey(slice));
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
                act.calls.checkConditions(e.node("test"));
                eval(e.node("test"));
                return eval(e.node("body")).join(eval(e.node("orelse")));
            }
            case "Call" -> {
                return act.calls.call(e);
            }
            case "JoinedStr" -> {
                Taint all = Taint.NONE;
                for (PyNode part : e.nodes("values")) {
                    all = all.union(eval(part).deep());
                }
                return Value.typed("str", all.then(act.file, e.line(), e.col(), "formatted into an f-string"));
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
                act.assignments.assign(e.node("target"), value, e.node("value"));
                return value;
            }
            case "Starred", "Await" -> {
                return eval(e.node("value"));
            }
            case "Yield" -> {
                act.returned = act.returned.join(eval(e.node("value")).then(act.file, e.line(), e.col(), "yielded from " + act.fn.name() + "()"));
                return Value.CLEAN;
            }
            case "YieldFrom" -> {
                act.returned = act.returned.join(eval(e.node("value")).element());
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
        ProjectIndex index = act.an.index;
        String symbol = act.staticSymbol(e);
        String attr = e.str("attr");
        if (symbol != null) {
            String module = index.projectModuleOf(symbol);
            if (module == null || module.equals(symbol) || index.function(symbol) != null || index.classInfo(symbol) != null) {
                return Value.symbol(symbol);
            }
        }
        AccessPath path = act.pathOf(e);
        if (path != null && path.isGlobal()) {
            return Locations.read(act.an.globals.get(path.root()), path.keys());
        }
        Value base = eval(e.node("value"));
        if (base.type != null) {
            ClassInfo klass = index.classInfo(base.type);
            if (klass != null) {
                FunctionInfo member = index.lookup(klass, attr);
                if (member != null && member.kind == FunctionInfo.Kind.PROPERTY) {
                    return act.calls.callFunctions(List.of(member),
                                    act.calls.shapeOf(e, base, act.pathOf(e.node("value")), List.of(), List.of()), true)
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
            String field = NameResolver.itemKey(key);
            result = field.equals(Value.ANY_ITEM) ? result.withJoined(field, value) : result.with(field, value);
        }
        return result;
    }

    private Value comprehension(PyNode e) {
        List<String> bound = new ArrayList<>();
        for (PyNode generator : e.nodes("generators")) {
            Value iterable = eval(generator.node("iter"));
            for (String name : NameCollector.boundNames(generator.node("target"))) {
                act.names.enterComprehension(name);
                bound.add(name);
            }
            act.assignments.assign(generator.node("target"), iterable.element(), null);
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
            if (act.names.leaveComprehension(name) && !act.fn.isLocal(name)) {
                act.state.put(name, Value.CLEAN);
            }
        }
        return result;
    }

    /** Python-like text of an expression for incompleteness messages: {@code self.cfg.load(...)}. */
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
