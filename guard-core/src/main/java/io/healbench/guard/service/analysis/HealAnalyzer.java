package io.healbench.guard.service.analysis;

import io.healbench.common.guard.HealAnalysis;
import io.healbench.common.heal.Resume;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * AnalyzeHeal's domain logic (docs/healguard.md §3): from the heal's Δk, interprets the rest of the crashing
 * function from the crash statement, then each project caller's rest from its call site, following every project
 * function reachable by calls, and decides TAINTED (a source reaches a protected operation's key input, with the
 * flow), CLEAN, or UNKNOWN (no flow, but something could not be followed).
 */
public final class HealAnalyzer {

    public static final Duration DEFAULT_TIME_LIMIT = Duration.ofSeconds(20);
    public static final long DEFAULT_MAX_STEPS = 3_000_000;
    /** Rounds of the whole analysis while globals keep changing (a global written late, read early). */
    private static final int MAX_ROUNDS = 4;
    /** Deep expressions (long concatenations) recurse; the analysis gets a thread with a stack to match. */
    private static final long STACK_BYTES = 256L * 1024 * 1024;
    /** A method call or setattr/delattr in heal code (see {@link #mayChangeUnseen}). */
    private static final Pattern MUTATING_CALL = Pattern.compile("\\.\\s*[A-Za-z_]\\w*\\s*\\(|\\b(setattr|delattr)\\s*\\(");

    /** Analyses running at once by default; more wait in a bounded queue, and beyond it are refused. */
    public static final int DEFAULT_CONCURRENCY = 2;
    public static final int DEFAULT_QUEUE = 32;
    /** Past the analysis's own deadline: how long to wait for it to notice before giving up on it. */
    private static final Duration OVERRUN_GRACE = Duration.ofSeconds(5);

    private final Duration timeLimit;
    private final long maxSteps;
    private final ThreadPoolExecutor workers;

    public HealAnalyzer(Duration timeLimit, long maxSteps, int concurrency, int queue) {
        this.timeLimit = timeLimit;
        this.maxSteps = maxSteps;
        AtomicInteger counter = new AtomicInteger();
        this.workers = new ThreadPoolExecutor(concurrency, concurrency, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(queue), r -> {
            Thread thread = new Thread(null, r, "healguard-static-" + counter.incrementAndGet(), STACK_BYTES);
            thread.setDaemon(true);
            return thread;
        });
        workers.allowCoreThreadTimeOut(true);
    }

    public HealAnalyzer(Duration timeLimit, long maxSteps) {
        this(timeLimit, maxSteps, DEFAULT_CONCURRENCY, DEFAULT_QUEUE);
    }

    public HealAnalyzer() {
        this(DEFAULT_TIME_LIMIT, DEFAULT_MAX_STEPS);
    }

    /**
     * Decides on one of a bounded number of deep-stack threads, within the time limit; throws
     * {@link AnalysisInputException} for malformed input (trees, policy, Δk locations) and {@link AnalysisBusyException}
     * when the queue is full. An analysis that overruns its deadline is abandoned (interrupted) and decides UNKNOWN.
     */
    public AnalysisResult analyze(AnalysisInput input) {
        Future<AnalysisResult> running;
        try {
            running = workers.submit(() -> analyzeHere(input));
        } catch (RejectedExecutionException e) {
            throw new AnalysisBusyException(workers.getMaximumPoolSize() + " analyses are running and "
                    + workers.getQueue().size() + " waiting; try again later");
        }
        try {
            return running.get(timeLimit.plus(OVERRUN_GRACE).toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            running.cancel(true);
            return unknown(input, "analysis time", "the analysis did not end within " + timeLimit.plus(OVERRUN_GRACE).toSeconds() + " s");
        } catch (InterruptedException e) {
            running.cancel(true);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while analysing", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof StackOverflowError) {
                return unknown(input, "nesting", "the code nests too deeply to analyse");
            }
            if (cause instanceof RuntimeException failure) {
                throw failure; // AnalysisInputException among them
            }
            throw new IllegalStateException("the analysis failed", cause);
        }
    }

    private static AnalysisResult unknown(AnalysisInput input, String construct, String reason) {
        HealAnalysis.CrashPoint point = input.analysis().crashPoint();
        return new AnalysisResult(AnalysisResult.Verdict.UNKNOWN, "", List.of(), null, List.of(new AnalysisResult.Incomplete(
                point.file(), point.line(), 0, construct, reason)), 0);
    }

    private AnalysisResult analyzeHere(AnalysisInput input) {
        HealAnalysis analysis = input.analysis();
        List<ModuleScope> scopes = new ArrayList<>();
        for (HealAnalysis.ModuleTree module : analysis.modules()) {
            scopes.add(new ModuleScope(module.module(), module.file(), PyAstReader.read(module.astJson(), module.file())));
        }
        ProjectIndex index = new ProjectIndex(scopes);
        ProtectionPolicy policy = ProtectionPolicy.parse(input.policyJson());
        Analysis an = new Analysis(index, policy, maxSteps, System.nanoTime() + timeLimit.toNanos());
        HealAnalysis.CrashPoint point = analysis.crashPoint();
        if (analysis.modulesTruncated()) {
            an.incomplete("", null, "export cap", "healrt's export of the project modules hit its cap: some modules are missing");
        }
        if (analysis.deltaTruncated() && mayChangeUnseen(input.healCode())) {
            an.incomplete(point.file(), null, "Δk bound", "Δk was truncated and the heal calls code that may change objects"
                    + " beyond what it assigns: it may have sources that are not listed");
        }
        try {
            run(analysis, an, index);
        } catch (Analysis.Found found) {
            // the finding is recorded
        } catch (Analysis.BudgetExceeded exceeded) {
            an.incomplete(point.file(), null, "analysis budget", exceeded.getMessage());
        }
        return verdict(an);
    }

    /**
     * Whether a heal can change locations Δk's bounded walk may miss. What a heal assigns (names, attributes,
     * items) is always in Δk; only calls (a method, setattr) can change objects beyond that.
     */
    static boolean mayChangeUnseen(String healCode) {
        return healCode == null || healCode.isBlank() || MUTATING_CALL.matcher(healCode).find();
    }

    private static void run(HealAnalysis analysis, Analysis an, ProjectIndex index) {
        HealAnalysis.CrashPoint point = analysis.crashPoint();
        ModuleScope scope = index.moduleOfFile(point.file());
        if (scope == null) {
            an.incomplete(point.file(), null, "crash module", "the crashing module " + point.file() + " was not exported");
            return;
        }
        FunctionInfo crashed = index.functionIn(scope, point.qualname(), point.line());
        PyNode statement = crashed == null ? null : Statements.at(crashed, point.line(), point.col());
        if (statement == null) {
            an.incomplete(point.file(), null, "crash point", "no statement of " + point.qualname() + " starts at line "
                    + point.line() + ", column " + point.col() + " of the exported " + point.file());
            return;
        }
        List<Sources.Source> sources = Sources.of(analysis.delta(), crashed, point);
        for (Sources.Source source : sources) {
            an.anySource = an.anySource.union(Taint.source(source.label(), source.origin()));
        }
        Activation.Mode mode = point.resume() == Resume.RETRY ? Activation.Mode.BEFORE
                : point.resume() == Resume.RETURN || "return".equals(point.kind()) ? Activation.Mode.RETURN
                : Activation.Mode.AFTER;
        GlobalStore store = new GlobalStore();
        for (Sources.Source source : sources) {
            if (source.path().isGlobal()) {
                store.write(source.path(), Value.of(Taint.source(source.label(), source.origin())));
            }
        }
        for (int round = 0; round < MAX_ROUNDS; round++) {
            store.resetChanged();
            an.newRound(store);
            Activation.Injection injection = new Activation.Injection(statement, mode, activation -> {
                for (Sources.Source source : sources) {
                    if (!source.path().isGlobal()) {
                        activation.write(source.path(), Value.of(Taint.source(source.label(), source.origin())), false);
                    }
                }
            });
            Activation activation = new Activation(an, crashed, injection, null);
            activation.run(State.bottom());
            an.activations++;
            callers(point, an, index, crashed, activation.result(), activation.parametersAtExit());
            if (!store.changed()) {
                return;
            }
        }
    }

    /** Each project caller's rest, from the call it is inside: the callee's result and effects enter there. */
    private static void callers(HealAnalysis.CrashPoint point, Analysis an, ProjectIndex index, FunctionInfo crashed, Value result,
                                Map<String, Value> parameters) {
        FunctionInfo inner = crashed;
        Value innerResult = result;
        Map<String, Value> innerParameters = parameters;
        for (HealAnalysis.CallSite site : point.callers()) {
            String name = site.qualname().substring(site.qualname().lastIndexOf('.') + 1);
            if (name.startsWith("<") && !name.equals("<module>")) {
                // A generator expression, comprehension or lambda frame (or a type-parameter scope): its values
                // reach the next caller through whatever consumes them; carry them on as derived data.
                innerResult = innerResult.flat();
                innerParameters = Map.of();
                inner = null;
                continue;
            }
            ModuleScope scope = index.moduleOfFile(site.file());
            FunctionInfo caller = scope == null ? null : index.functionIn(scope, site.qualname(), site.line());
            if (caller == null) {
                an.incomplete(site.file(), null, "caller " + site.qualname(), "the caller's module was not exported");
                return;
            }
            PyNode call = Statements.expressionAt(caller, site);
            PyNode statement = call == null ? Statements.at(caller, site.line(), -1) : Statements.containing(caller, call);
            if (statement == null) {
                an.incomplete(site.file(), null, "call site", "no statement of " + site.qualname() + " holds line " + site.line());
                return;
            }
            FunctionInfo callee = inner;
            Map<String, Value> effects = innerParameters;
            boolean throughLibrary = site.throughLibrary() || callee == null;
            boolean direct = !throughLibrary && call != null && call.is("Call");
            Value value = callee != null && "__init__".equals(callee.name()) && callee.receiver() != null
                    && effects.containsKey(callee.receiver())
                    ? effects.get(callee.receiver()).withType(callee.owner == null ? null : callee.owner.qualified())
                    : innerResult;
            if (throughLibrary) {
                value = value.flat();
                if (effects.values().stream().anyMatch(v -> !v.isClean())) {
                    an.incomplete(site.file(), call, "library frames below " + site.qualname(),
                            "what the frame inside it did to its arguments is not carried back through library code");
                }
            }
            Activation.Injection injection = new Activation.Injection(statement, Activation.Mode.CALL, activation -> {
                if (direct) {
                    activation.calls.applyCallEffects(call, callee, effects);
                }
            });
            if (call != null) {
                injection.overrides.put(call, value.then(site.file(), site.line(), site.col(), "returned to " + site.qualname() + "()"));
            } else if (!value.isClean()) {
                an.incomplete(site.file(), statement, "call site in " + site.qualname(),
                        "no expression at line " + site.line() + ", column " + site.col() + " receives what the frame inside it returns");
            }
            Activation activation = new Activation(an, caller, injection, null);
            activation.run(State.bottom());
            an.activations++;
            inner = caller;
            innerResult = activation.result();
            innerParameters = activation.parametersAtExit();
        }
    }

    private static AnalysisResult verdict(Analysis an) {
        List<AnalysisResult.Incomplete> incomplete = an.incomplete();
        Analysis.Finding finding = an.finding;
        if (finding != null) {
            AnalysisResult.Sink sink = new AnalysisResult.Sink(finding.op().op(), finding.op().category(), finding.input(),
                    finding.file(), finding.line(), finding.col());
            return new AnalysisResult(AnalysisResult.Verdict.TAINTED, finding.label(), finding.flow().path(), sink, incomplete,
                    an.activations);
        }
        return new AnalysisResult(incomplete.isEmpty() ? AnalysisResult.Verdict.CLEAN : AnalysisResult.Verdict.UNKNOWN, "",
                List.of(), null, incomplete, an.activations);
    }

    /** Finds statements and expressions by position in a function's body (not in nested definitions). */
    static final class Statements {

        private static final List<String> BODIES = List.of("body", "orelse", "finalbody", "handlers", "cases");

        private Statements() {}

        /** The statement starting at (line, col); col -1: the first statement starting on the line. */
        static PyNode at(FunctionInfo function, int line, int col) {
            Deque<PyNode> work = new ArrayDeque<>(bodyOf(function));
            PyNode firstOnLine = null;
            while (!work.isEmpty()) {
                PyNode statement = work.poll();
                if (statement.line() == line && (statement.col() == col || col < 0) && firstOnLine == null) {
                    if (col >= 0) {
                        return statement;
                    }
                    firstOnLine = statement;
                }
                if (!statement.isAny("FunctionDef", "AsyncFunctionDef", "ClassDef") && statement.spansLine(line)) {
                    work.addAll(nested(statement));
                }
            }
            return firstOnLine;
        }

        /** The innermost statement holding an expression node. */
        static PyNode containing(FunctionInfo function, PyNode expression) {
            return containing(bodyOf(function), expression);
        }

        private static PyNode containing(List<PyNode> block, PyNode expression) {
            for (PyNode statement : block) {
                if (statement == null || !spans(statement, expression)) {
                    continue;
                }
                if (!statement.isAny("FunctionDef", "AsyncFunctionDef", "ClassDef")) {
                    PyNode inner = containing(nested(statement), expression);
                    if (inner != null) {
                        return inner;
                    }
                }
                return statement;
            }
            return null;
        }

        /** The expression with exactly the call site's span (preferring a call), else the innermost call around it. */
        static PyNode expressionAt(FunctionInfo function, HealAnalysis.CallSite site) {
            PyNode exact = null;
            PyNode around = null;
            Deque<PyNode> work = new ArrayDeque<>(bodyOf(function));
            while (!work.isEmpty()) {
                PyNode node = work.poll();
                if (node.isAny("FunctionDef", "AsyncFunctionDef", "ClassDef", "Lambda")) {
                    continue;
                }
                if (node.line() == site.line() && node.col() == site.col() && node.endLine() == site.endLine()
                        && node.endCol() == site.endCol() && (exact == null || node.is("Call"))) {
                    exact = node;
                }
                if (node.is("Call") && node.line() <= site.line() && node.endLine() >= site.line()
                        && (around == null || narrower(node, around))) {
                    around = node;
                }
                work.addAll(NameCollector.children(node));
            }
            return exact != null ? exact : around;
        }

        private static boolean narrower(PyNode a, PyNode b) {
            return a.line() > b.line() || a.line() == b.line() && a.col() > b.col();
        }

        private static boolean spans(PyNode outer, PyNode inner) {
            boolean startsBefore = outer.line() < inner.line() || outer.line() == inner.line() && outer.col() <= inner.col();
            boolean endsAfter = outer.endLine() > inner.endLine() || outer.endLine() == inner.endLine() && outer.endCol() >= inner.endCol();
            return startsBefore && endsAfter;
        }

        private static List<PyNode> bodyOf(FunctionInfo function) {
            return function.node.nodes("body").stream().filter(n -> n != null).toList();
        }

        private static List<PyNode> nested(PyNode statement) {
            List<PyNode> inner = new ArrayList<>();
            for (String field : BODIES) {
                for (PyNode child : statement.nodes(field)) {
                    if (child == null) {
                        continue;
                    }
                    if (child.isAny("ExceptHandler", "match_case")) {
                        child.nodes("body").stream().filter(n -> n != null).forEach(inner::add);
                    } else {
                        inner.add(child);
                    }
                }
            }
            return inner;
        }
    }
}
