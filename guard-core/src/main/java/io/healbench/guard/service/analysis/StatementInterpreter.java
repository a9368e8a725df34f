package io.healbench.guard.service.analysis;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The control flow of one {@link Activation}: statements in order, branches, loops run to a fixpoint, try/except
 * and the routes of raised exceptions, returns, and the injection statement. Control dependence is not tracked: both
 * branches of a test run, and their states are joined.
 */
final class StatementInterpreter {

    private static final int MAX_LOOP_ROUNDS = 40;

    private final Activation act;
    private final Activation.Injection injection;
    private final Deque<LoopFrame> loops = new ArrayDeque<>();
    private final Deque<TryFrame> tries = new ArrayDeque<>();

    private static final class LoopFrame {
        final State breaks = State.bottom();
        final State continues = State.bottom();
    }

    private static final class TryFrame {
        final State exceptional = State.bottom();
        Value raised = Value.CLEAN;
    }

    StatementInterpreter(Activation act, Activation.Injection injection) {
        this.act = act;
        this.injection = injection;
    }

    void execBlock(List<PyNode> statements) {
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
        act.an.tick();
        if (injection != null && s == injection.statement) {
            inject(s);
            return;
        }
        if (act.state.isBottom() && !holdsInjection(s)) {
            return;
        }
        dispatch(s);
    }

    private void dispatch(PyNode s) {
        exceptionalPoint();
        switch (s.type()) {
            case "Expr" -> act.eval(s.node("value"));
            case "Assign" -> {
                Value value = act.eval(s.node("value"));
                for (PyNode target : s.nodes("targets")) {
                    act.assignments.assign(target, value, s.node("value"));
                }
            }
            case "AnnAssign" -> {
                if (s.node("value") != null) {
                    act.assignments.assign(s.node("target"), act.eval(s.node("value")), s.node("value"));
                }
            }
            case "AugAssign" -> act.assignments.augAssign(s);
            case "Delete" -> s.nodes("targets").forEach(act.assignments::delete);
            case "Return" -> returnWith(act.eval(s.node("value")), s);
            case "If" -> execIf(s);
            case "For", "AsyncFor" -> execFor(s);
            case "While" -> execWhile(s);
            case "Try", "TryStar" -> execTry(s);
            case "With", "AsyncWith" -> execWith(s);
            case "Raise" -> {
                Value exception = act.eval(s.node("exc"));
                act.eval(s.node("cause"));
                raise(exception);
            }
            case "Assert" -> {
                act.calls.checkConditions(s.node("test"));
                act.eval(s.node("test"));
                act.eval(s.node("msg"));
            }
            case "Break" -> {
                if (!loops.isEmpty()) {
                    loops.peek().breaks.join(act.state);
                }
                act.state = State.bottom();
            }
            case "Continue" -> {
                if (!loops.isEmpty()) {
                    loops.peek().continues.join(act.state);
                }
                act.state = State.bottom();
            }
            case "Match" -> execMatch(s);
            case "Import", "ImportFrom" -> bindLocalImports(s);
            case "FunctionDef", "AsyncFunctionDef", "ClassDef" -> {
                if (!act.fn.isModuleBody()) {  // a module's own definitions are its bindings (ScopeBuilder)
                    act.assignments.bindName(s.str("name"), Value.symbol(act.fn.qualified() + ".<locals>." + s.str("name")));
                }
            }
            default -> { }  // Pass, Global, Nonlocal, TypeAlias
        }
        exceptionalPoint();
    }

    /** The injection statement: the heal's sources (or a callee's effects) enter here. */
    private void inject(PyNode s) {
        State before = act.state;
        act.state = State.empty();
        injection.seed.accept(act);
        State injected = act.state;
        switch (injection.mode) {
            case AFTER -> {
                act.state = before;
                if (!before.isBottom()) {
                    dispatch(s);
                }
                injected.join(act.state);
                act.state = injected;
            }
            case BEFORE, CALL -> {
                before.join(injected);
                act.state = before;
                dispatch(s);
            }
            case RETURN -> {
                returnWith(injected.get(Activation.RETURN_SLOT), s);
                act.state = before;
                if (!before.isBottom()) {
                    dispatch(s);
                }
            }
        }
        exceptionalPoint();
    }

    private void exceptionalPoint() {
        if (!tries.isEmpty() && !act.state.isBottom()) {
            tries.peek().exceptional.join(act.state);
        }
    }

    private void returnWith(Value value, PyNode at) {
        if (act.state.isBottom()) {
            return;
        }
        act.returned = act.returned.join(value.then(act.file, at.line(), at.col(), "returned from " + act.fn.name() + "()"));
        act.exit.join(act.state);
        act.state = State.bottom();
    }

    private void raise(Value exception) {
        if (!tries.isEmpty()) {
            TryFrame frame = tries.peek();
            frame.raised = frame.raised.join(exception);
            frame.exceptional.join(act.state);
        } else {
            act.raised = act.raised.join(exception);
            act.exit.join(act.state);
        }
        act.state = State.bottom();
    }

    private void execIf(PyNode s) {
        PyNode test = s.node("test");
        if (!act.state.isBottom()) {
            act.calls.checkConditions(test);
            act.eval(test);
        }
        Boolean constant = constantTruth(test);
        State entry = act.state.copy();
        if (!Boolean.FALSE.equals(constant) || holdsIn(s.nodes("body"))) {
            execBlock(s.nodes("body"));
        } else {
            act.state = State.bottom();
        }
        State afterBody = act.state;
        act.state = entry;
        if (!Boolean.TRUE.equals(constant) || holdsIn(s.nodes("orelse"))) {
            execBlock(s.nodes("orelse"));
        } else {
            act.state = State.bottom();
        }
        act.state.join(afterBody);
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
        act.state = iterate(s, loop, () -> {
            Value iterable = act.eval(s.node("iter"));
            act.assignments.assign(s.node("target"),
                    iterable.element().then(act.file, s.line(), s.col(), "taken from the loop's iterable"), null);
        });
        execBlock(s.nodes("orelse"));
        act.state.join(loop.breaks);
    }

    private void execWhile(PyNode s) {
        LoopFrame loop = new LoopFrame();
        PyNode test = s.node("test");
        State head = iterate(s, loop, () -> {
            act.calls.checkConditions(test);
            act.eval(test);
        });
        act.state = Boolean.TRUE.equals(constantTruth(test)) ? State.bottom() : head;
        execBlock(s.nodes("orelse"));
        act.state.join(loop.breaks);
    }

    /**
     * Runs a loop's header and body to a fixpoint of the state at the loop head (joined with every
     * {@code continue}), capped at MAX_LOOP_ROUNDS (then incomplete); returns the head state.
     */
    private State iterate(PyNode s, LoopFrame loop, Runnable header) {
        loops.push(loop);
        State head = act.state.copy();
        for (int round = 0; ; round++) {
            act.state = head.copy();
            if (!act.state.isBottom()) {
                header.run();
            }
            execBlock(s.nodes("body"));
            State next = head.copy();
            next.join(act.state);
            next.join(loop.continues);
            if (next.same(head)) {
                break;
            }
            head = next;
            if (round >= MAX_LOOP_ROUNDS) {
                act.an.incomplete(act.file, s, "loop", "the loop's state did not stabilise within " + MAX_LOOP_ROUNDS + " rounds");
                break;
            }
        }
        loops.pop();
        return head;
    }

    private void execTry(PyNode s) {
        TryFrame frame = new TryFrame();
        tries.push(frame);
        frame.exceptional.join(act.state);
        execBlock(s.nodes("body"));
        tries.pop();
        execBlock(s.nodes("orelse"));
        State normal = act.state;
        for (PyNode handler : s.nodes("handlers")) {
            act.state = frame.exceptional.copy();
            if (!act.state.isBottom()) {
                act.eval(handler.node("type"));
                if (handler.str("name") != null) {
                    act.assignments.bindName(handler.str("name"), frame.raised.then(act.file, handler.line(), handler.col(),
                            "caught as " + handler.str("name")));
                }
            }
            execBlock(handler.nodes("body"));
            normal.join(act.state);
        }
        List<PyNode> finalBody = s.nodes("finalbody");
        // The exception may also escape (no handler matches): it reaches the enclosing handlers through finally.
        act.state = frame.exceptional.copy();
        if (!finalBody.isEmpty()) {
            execBlock(finalBody);
        }
        if (!act.state.isBottom()) {
            propagate(act.state, frame.raised);
        }
        act.state = normal;
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
            act.raised = act.raised.join(exception);
        }
    }

    private void propagate(State exceptional, Value exception) {
        if (!tries.isEmpty()) {
            tries.peek().exceptional.join(exceptional);
            tries.peek().raised = tries.peek().raised.join(exception);
        } else {
            act.exit.join(exceptional);
            act.raised = act.raised.join(exception);
        }
    }

    private void execWith(PyNode s) {
        if (!act.state.isBottom()) {
            for (PyNode item : s.nodes("items")) {
                Value manager = act.eval(item.node("context_expr"));
                if (item.node("optional_vars") != null) {
                    act.assignments.assign(item.node("optional_vars"), manager, item.node("context_expr"));
                }
            }
        }
        execBlock(s.nodes("body"));
    }

    private void execMatch(PyNode s) {
        Value subject = act.state.isBottom() ? Value.CLEAN : act.eval(s.node("subject"));
        State entry = act.state.copy();
        State out = entry.copy();  // no case matched
        for (PyNode matchCase : s.nodes("cases")) {
            act.state = entry.copy();
            if (!act.state.isBottom()) {
                for (String name : NameCollector.patternNames(matchCase.node("pattern"))) {
                    act.assignments.bindName(name, subject);
                }
                act.eval(matchCase.node("guard"));
            }
            execBlock(matchCase.nodes("body"));
            out.join(act.state);
        }
        act.state = out;
    }

    private void bindLocalImports(PyNode s) {
        if (act.fn.isModuleBody()) {
            return;  // module-level imports are the module's bindings (ProjectIndex)
        }
        Map<String, String> bound = new HashMap<>();
        ScopeBuilder.bindImports(act.fn.module, s, bound);
        bound.forEach((name, qualified) -> act.assignments.bindName(name, Value.symbol(act.an.index.canonical(qualified))));
    }
}
