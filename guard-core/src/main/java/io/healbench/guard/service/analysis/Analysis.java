package io.healbench.guard.service.analysis;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The state shared by every function activation of one AnalyzeHeal: the index, the policy, the global store, the
 * call memo (function summaries per calling context), the budget, what could not be followed, and the finding.
 */
final class Analysis {

    /** A function's effect for one calling context: its return value, its parameters' objects at exit, what it raises. */
    record Summary(Value returned, Map<String, Value> paramsOut, Value raised) {}

    /** The first tainted sink: stops the analysis (the verdict cannot change). */
    static final class Found extends RuntimeException {
        Found() {
            super(null, null, false, false);
        }
    }

    /** The budget ran out: the verdict is UNKNOWN unless a flow was found already. */
    static final class BudgetExceeded extends RuntimeException {
        BudgetExceeded(String message) {
            super(message, null, false, false);
        }
    }

    record Finding(ProtectionPolicy.Operation op, String input, String label, Step flow, String file, int line, int col) {}

    static final int MAX_CALL_DEPTH = 30;
    private static final int MAX_INCOMPLETE = 50;

    final ProjectIndex index;
    final ProtectionPolicy policy;
    GlobalStore globals = new GlobalStore();
    private final Map<String, Summary> memo = new HashMap<>();
    private final Deque<FunctionInfo> stack = new ArrayDeque<>();
    private final Map<String, AnalysisResult.Incomplete> incomplete = new LinkedHashMap<>();
    private final long maxTicks;
    private final long deadline;
    private long ticks;
    int activations;
    Finding finding;
    /** Every heal source with its origin: what reaching an operation without key input is charged with. */
    Taint anySource = Taint.NONE;

    Analysis(ProjectIndex index, ProtectionPolicy policy, long maxTicks, long deadlineNanos) {
        this.index = index;
        this.policy = policy;
        this.maxTicks = maxTicks;
        this.deadline = deadlineNanos;
    }

    /** Starts another round: a fresh memo (summaries may have read globals that changed since). */
    void newRound(GlobalStore store) {
        globals = store;
        memo.clear();
    }

    void tick() {
        ticks++;
        if (ticks > maxTicks) {
            throw new BudgetExceeded("the analysis stopped after " + maxTicks + " statement visits");
        }
        if ((ticks & 1023) == 0 && System.nanoTime() > deadline) {
            throw new BudgetExceeded("the analysis ran out of time");
        }
    }

    void incomplete(String file, PyNode at, String construct, String reason) {
        int line = at == null ? 0 : at.line();
        int col = at == null ? 0 : at.col();
        String key = file + ":" + line + ":" + col + ":" + construct;
        if (incomplete.size() < MAX_INCOMPLETE) {
            incomplete.putIfAbsent(key, new AnalysisResult.Incomplete(file, line, col, construct, reason));
        }
    }

    List<AnalysisResult.Incomplete> incomplete() {
        return List.copyOf(incomplete.values());
    }

    void found(ProtectionPolicy.Operation op, String input, Taint taint, String file, PyNode at) {
        Map.Entry<String, Step> flow = taint.shortest();
        finding = new Finding(op, input, flow.getKey(), flow.getValue(), file, at.line(), at.col());
        throw new Found();
    }

    /**
     * The summary of calling {@code function} with these parameter values (and, for a nested function, the
     * enclosing activation's state): analysed once per calling context and round.
     */
    Summary call(FunctionInfo function, Map<String, Value> bound, State closure, String file, PyNode site) {
        Taint received = Taint.NONE;
        for (Value value : bound.values()) {
            received = received.union(value.deep());
        }
        boolean closureClean = closure == null || closure.locals.values().stream().allMatch(Value::isClean);
        if (received.isEmpty() && closureClean && globals.isClean()) {
            return new Summary(Value.CLEAN, bound, Value.CLEAN);  // nothing it can see carries a source
        }
        if (stack.contains(function) || stack.size() >= MAX_CALL_DEPTH) {
            if (stack.size() >= MAX_CALL_DEPTH && !received.isEmpty()) {
                incomplete(file, site, "call depth " + MAX_CALL_DEPTH,
                        "calls nested this deep are summarised conservatively (every input reaches the result)");
            }
            return new Summary(Value.of(received), bound, Value.CLEAN);
        }
        StringBuilder key = new StringBuilder(function.qualified()).append('@').append(function.node.line());
        bound.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(entry -> key.append('|').append(entry.getKey()).append('=').append(entry.getValue().signature()));
        if (closure != null) {
            closure.locals.entrySet().stream().sorted(Map.Entry.comparingByKey())
                    .forEach(entry -> key.append("|^").append(entry.getKey()).append('=').append(entry.getValue().signature()));
        }
        Summary known = memo.get(key.toString());
        if (known != null) {
            return known;
        }
        stack.push(function);
        try {
            Activation activation = new Activation(this, function, null, closure);
            State entry = State.empty();
            bound.forEach(entry::put);
            activation.run(entry);
            activations++;
            Summary summary = new Summary(activation.result(), activation.parametersAtExit(), activation.raised);
            memo.put(key.toString(), summary);
            return summary;
        } finally {
            stack.pop();
        }
    }
}
