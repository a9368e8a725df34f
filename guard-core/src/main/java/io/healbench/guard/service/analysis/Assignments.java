package io.healbench.guard.service.analysis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The writes of one {@link Activation}: assignment targets (names, attributes, items, unpacking), augmented
 * assignment and {@code del}, and the locations they update: locals and the objects below them in the state (strong
 * updates where the path is exact), module globals in the {@link GlobalStore} every function reads (always weak),
 * with the state's must-aliases kept in step.
 */
final class Assignments {

    private final Activation act;

    Assignments(Activation act) {
        this.act = act;
    }

    void assign(PyNode target, Value value, PyNode valueExpression) {
        if (target == null || act.state.isBottom()) {
            return;
        }
        switch (target.type()) {
            case "Name" -> {
                String name = target.str("id");
                Value stepped = value.then(act.file, target.line(), target.col(), "assigned to " + name);
                AccessPath source = valueExpression == null ? null : act.pathOf(valueExpression);
                if (act.isLocal(name)) {
                    act.state.put(name, stepped);
                    AccessPath self = AccessPath.of(name);
                    dropAliases(self);
                    if (source != null && source.exact() && !source.equals(self)) {
                        act.state.aliases.put(name, source);
                    }
                } else {
                    writeGlobalName(name, stepped);
                }
            }
            case "Attribute", "Subscript" -> {
                PyNode base = target.node("value");
                Value owner = act.eval(base);
                String key;
                if (target.is("Attribute")) {
                    key = "." + target.str("attr");
                } else {
                    act.eval(target.node("slice"));
                    key = NameResolver.itemKey(target.node("slice"));
                    if ("os.environ".equals(owner.symbol)) {
                        act.calls.environment("__setitem__", List.of(act.eval(target.node("slice")), value),
                                List.of(target.node("slice"), target), target);
                    }
                }
                AccessPath path = act.pathOf(base);
                if (path == null) {
                    if (!value.isClean() && owner.symbol == null) {
                        act.an.incomplete(act.file, target, "store into " + ExpressionEvaluator.describe(base),
                                "the object written to is not a named location (a call's result, ...): later reads of it are not followed");
                    }
                    return;
                }
                AccessPath location = path.then(key);
                write(location, value.then(act.file, target.line(), target.col(), "stored into " + location.display()), false);
                if (valueExpression != null && valueExpression.is("Name") && act.isLocal(valueExpression.str("id")) && location.exact()) {
                    act.state.aliases.put(valueExpression.str("id"), location);
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
            default -> act.eval(target);
        }
    }

    void augAssign(PyNode s) {
        PyNode target = s.node("target");
        Value current = act.eval(target);
        Value operand = act.eval(s.node("value"));
        Value result = Value.of(current.deep().union(operand.deep()));
        if (current.type != null && (current.type.equals("list") || current.type.equals("dict") || current.type.equals("set"))) {
            result = current.withJoined(Value.ANY_ITEM, operand.element()).withTaint(Taint.NONE);
        } else if (current.type != null) {
            result = result.withType(current.type);
        }
        assign(target, result, null);
    }

    void delete(PyNode target) {
        if (act.state.isBottom()) {
            return;
        }
        if (target.is("Name") && act.isLocal(target.str("id"))) {
            act.state.put(target.str("id"), Value.CLEAN);
            dropAliases(AccessPath.of(target.str("id")));
            return;
        }
        if (target.is("Subscript")) {
            Value owner = act.eval(target.node("value"));
            Value key = act.eval(target.node("slice"));
            if ("os.environ".equals(owner.symbol)) {
                act.calls.environment("__delitem__", List.of(key), List.of(target.node("slice")), target);
            }
        }
        if (target.isAny("Attribute", "Subscript")) {
            AccessPath path = act.pathOf(target);
            if (path != null && path.exact() && !path.isGlobal()) {
                write(path, Value.CLEAN, false);
            }
        }
    }

    void bindName(String name, Value value) {
        if (act.isLocal(name)) {
            act.state.put(name, value);
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
        if (act.fn.isModuleBody()) {
            act.state.locals.put(name, value);
        }
        write(AccessPath.of(AccessPath.global(act.fn.module.name, name)), value, false);
    }

    /** Writes a location, and the locations its must-aliases share it with. */
    void write(AccessPath path, Value value, boolean weak) {
        writeOnly(path, value, weak);
        if (path.isGlobal()) {
            return;
        }
        for (Map.Entry<String, AccessPath> alias : new ArrayList<>(act.state.aliases.entrySet())) {
            AccessPath local = AccessPath.of(alias.getKey());
            AccessPath target = alias.getValue();
            if (target.within(path)) {
                act.state.aliases.remove(alias.getKey());  // the aliased location itself was rebound
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
            act.an.globals.write(path, value);
            return;
        }
        Value root = act.state.get(path.root());
        act.state.put(path.root(), Locations.update(root, path.keys(), 0, value, inexact));
    }

    private void dropAliases(AccessPath rebound) {
        act.state.aliases.remove(rebound.root());
        act.state.aliases.entrySet().removeIf(alias -> alias.getValue().within(rebound));
    }
}
