package io.healbench.guard.service.analysis;

import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One activation of a function (or a module body) interpreted over abstract values: statements transform the
 * {@link State} ({@link StatementInterpreter}), expressions evaluate to {@link Value}s ({@link ExpressionEvaluator}),
 * names resolve to values, symbols and locations ({@link NameResolver}), assignments write locations
 * ({@link Assignments}), and calls go to {@link Calls} (project code through {@link Analysis#call}, library code
 * through {@link CallModels}), which also checks every call of a protected operation for heal sources in its key input.
 *
 * <p>The parts share this activation's state and reach each other through it; its methods below are also what
 * {@link Calls}, {@link CallModels} and the callers of the analysis see of the interpreter.
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

    final Analysis an;
    final Calls calls = new Calls(this);
    final FunctionInfo fn;
    final String file;
    final NameResolver names;
    final Assignments assignments;
    final ExpressionEvaluator expressions;
    final StatementInterpreter statements;
    State state = State.bottom();
    /** What the activation returns or, for a generator, yields (joined over every path). */
    Value returned = Value.CLEAN;
    /** The state at every exit (returns, uncaught raises and the end of the body), joined. */
    final State exit = State.bottom();
    Value raised = Value.CLEAN;

    Activation(Analysis an, FunctionInfo fn, Injection injection, State closure) {
        this.an = an;
        this.fn = fn;
        this.file = fn.module.file;
        this.names = new NameResolver(this, closure);
        this.assignments = new Assignments(this);
        this.expressions = new ExpressionEvaluator(this, injection == null ? Map.of() : injection.overrides);
        this.statements = new StatementInterpreter(this, injection);
    }

    // ================================================================ results

    void run(State entry) {
        state = entry;
        statements.execBlock(fn.node.nodes("body"));
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

    // ================================================================ the interpreter's entry points

    Value eval(PyNode e) {
        return expressions.eval(e);
    }

    void write(AccessPath path, Value value, boolean weak) {
        assignments.write(path, value, weak);
    }

    AccessPath pathOf(PyNode e) {
        return names.pathOf(e);
    }

    String staticSymbol(PyNode e) {
        return names.staticSymbol(e);
    }

    boolean isLocal(String name) {
        return names.isLocal(name);
    }

    boolean enclosingLocal(String name) {
        return names.enclosingLocal(name);
    }

    void raisedByCall(Value exception) {
        statements.raisedByCall(exception);
    }
}
