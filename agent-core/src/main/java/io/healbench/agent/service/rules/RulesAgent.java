package io.healbench.agent.service.rules;

import io.healbench.agent.service.AgentRecord;
import io.healbench.agent.service.AgentDecision;
import io.healbench.agent.service.AgentDecision.Heal;
import io.healbench.agent.service.AgentDecision.Reraise;
import io.healbench.agent.service.CrashObservation;
import io.healbench.agent.service.HealPoint;
import io.healbench.agent.service.HealResume;
import io.healbench.agent.service.HealingAgent;
import io.healbench.agent.service.ObservedFrame;
import io.healbench.agent.service.ObservedLocal;
import io.healbench.agent.service.RejectedHeal;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The offline baseline: writes HealCore heals from the live state of the crash (exception, failing
 * statement, locals, the enclosing function's source), never from knowledge of a particular bug.
 *
 * <p>For each crash it builds an ordered plan: the most specific heal first, then more generic
 * ones, then a reraise. Each ask returns the first step of the plan not already refused at this
 * heal point, so a heal the gate or the dry run refused is replaced by a more conservative one.
 *
 * <p>Rules, by exception (first match wins):
 * <ol>
 *   <li>KeyError: an assignment {@code T = M[K]} whose mapping is reachable from a local becomes
 *       {@code T = M.get(K)}; in any other assignment (including to a subscript, {@code d[k] = d[k] + n}),
 *       the loads {@code M[K]} of a dict-typed local M in the value become {@code M.get(K, D)}, D being
 *       {@code 0} for an operand of an arithmetic operator and {@code None} otherwise (default for a
 *       missing key); then assignments to plain names bind their targets to {@code None}.</li>
 *   <li>AttributeError on {@code None}: the targets become {@code None}.</li>
 *   <li>ZeroDivisionError: {@code T = A / B} becomes {@code T = A / B if B else 0}; otherwise the
 *       targets become a zero of the division's result type.</li>
 *   <li>TypeError naming {@code str}: locals read by the statement that are {@code str} holding a
 *       numeric literal are converted ({@code n = int(n)} / {@code float(n)}) and the statement is
 *       retried (restore a dropped conversion); then as below.</li>
 *   <li>TypeError, ValueError, IndexError: targets that already hold a value keep it, the others
 *       become {@code None}.</li>
 * </ol>
 * Whatever the exception, a {@code return} statement returns that rule's default, an expression
 * statement or an augmented assignment is skipped (its target keeps its value), and every other
 * statement kind is reraised.
 *
 * <p>Early exit after a failed local repair (per attempt memory): when a call that this agent healed
 * and resumed crashes again (at another statement, or at the same one with no local changed), or
 * crashes at a site where that was seen before in the attempt, the first step becomes an early
 * return shaped like the function's own {@code return} statements (see {@link #earlyReturnValue}).
 */
@ApplicationScoped
public class RulesAgent implements HealingAgent {

    public static final String NAME = "rules";

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_]\\w*");
    private static final Pattern NONE_ATTRIBUTE = Pattern.compile("^'NoneType' object has no attribute ");
    private static final Pattern FLOAT_LITERAL = Pattern.compile("(?<![\\w.])(\\d+\\.\\d*|\\.\\d+)(?![\\w.])");
    private static final Pattern NAME_TOKEN = Pattern.compile("(?<![\\w.])[A-Za-z_]\\w*");
    private static final Set<String> ASSIGNMENT_KINDS = Set.of("assign", "annassign");
    private static final Set<String> SKIPPABLE_KINDS = Set.of("expr", "augassign");
    private static final String SKIP_CODE = "pass";
    private static final String RETURN_SLOT = "_return_";
    private static final Set<String> SIMPLE_KINDS = Set.of("assign", "annassign", "augassign", "expr", "return");
    private static final Pattern MENTIONS_STR = Pattern.compile("'str'|(?<![\\w'])str(?![\\w'])");
    private static final Pattern INT_TEXT = Pattern.compile("'\\s*[+-]?\\d+(?:_\\d+)*\\s*'");
    private static final Pattern FLOAT_TEXT = Pattern.compile(
            "'\\s*[+-]?(?:\\d+(?:_\\d+)*\\.(?:\\d+(?:_\\d+)*)?|\\.\\d+(?:_\\d+)*|\\d+(?:_\\d+)*)"
                    + "(?:[eE][+-]?\\d+)?\\s*'");
    private static final Pattern RETURN_LITERAL = Pattern.compile(
            "[+-]?(?:\\d[\\d_]*(?:\\.\\d*)?(?:[eE][+-]?\\d+)?|\\.\\d+)|None|True|False|\\(\\)|\\[\\]|\\{\\}"
                    + "|'[^'\\\\]*'|\"[^\"\\\\]*\"");
    private static final Pattern ARITHMETIC_VALUE = Pattern.compile("[-+*/%]|^\\(*\\d");
    private static final Pattern TRUE_DIVISION = Pattern.compile("(?<!/)/(?!/)");
    private static final Pattern HEAL_BINDING = Pattern.compile("(?m)^\\s*([A-Za-z_]\\w*)\\s*=(?!=)");
    private static final int REMEMBERED_ATTEMPTS = 256;

    /** Per-attempt histories, by attempt id; dropped when the attempt ends (and bounded, oldest out). */
    private final Map<String, AttemptMemory> memories = Collections.synchronizedMap(
            new LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, AttemptMemory> eldest) {
                    return size() > REMEMBERED_ATTEMPTS;
                }
            });

    /** How the rule for an exception fills the values the failing statement did not produce. */
    private enum Repair {
        KEY_LOOKUP("None"),
        NONE_ATTRIBUTE("None"),
        DIVISION("0"),
        DEFAULT_VALUE("None");

        private final String returnValue;

        Repair(String returnValue) {
            this.returnValue = returnValue;
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public AgentDecision decide(HealPoint point) {
        CrashObservation crash = point.crash();
        Set<String> refused = point.rejected().stream().map(RejectedHeal::code).collect(Collectors.toSet());
        AttemptMemory memory = memories.computeIfAbsent(point.attemptId(), id -> new AttemptMemory());
        synchronized (memory) {
            Invocation here = Invocation.of(crash);
            boolean exitEarly = here != null && memory.repairFailedBefore(crash.healPoint(), here);
            for (AgentDecision step : plan(crash, exitEarly)) {
                if (!(step instanceof Heal heal) || !refused.contains(heal.code())) {
                    if (here != null) {
                        memory.record(crash.healPoint(), here, step, crash);
                    }
                    return step;
                }
            }
        }
        throw new IllegalStateException("a plan always ends with a reraise");
    }

    @Override
    public AgentRecord attemptEnded(String attemptId) {
        memories.remove(attemptId);
        return AgentRecord.NONE;
    }

    /** The ordered plan for a crash seen for the first time: candidate heals, most specific first, then a reraise. */
    List<AgentDecision> plan(CrashObservation crash) {
        return plan(crash, false);
    }

    /**
     * The ordered plan; with {@code exitEarly} (a local repair of this call already failed) an early
     * return comes first.
     */
    List<AgentDecision> plan(CrashObservation crash, boolean exitEarly) {
        List<AgentDecision> base = basePlan(crash);
        String kind = crash.statement().kind();
        if (!exitEarly || !crash.inFunction() || repairFor(crash) == null || kind.equals("return")
                || kind.equals("raise")) {
            return base;
        }
        List<AgentDecision> plan = new ArrayList<>();
        plan.add(new Heal(RETURN_SLOT + " = " + earlyReturnValue(crash), HealResume.RETURN));
        plan.addAll(base);
        return plan;
    }

    private List<AgentDecision> basePlan(CrashObservation crash) {
        Repair repair = repairFor(crash);
        if (repair == null) {
            return List.of(new Reraise("no rule for " + crash.exceptionType() + ": " + crash.exceptionMessage()));
        }
        String kind = crash.statement().kind();
        List<AgentDecision> plan = new ArrayList<>();
        droppedConversions(crash).ifPresent(code -> plan.add(new Heal(code, HealResume.RETRY)));
        if (ASSIGNMENT_KINDS.contains(kind)) {
            List<String> targets = crash.statement().targets();
            boolean plainTargets = !targets.isEmpty() && targets.stream().allMatch(t -> IDENTIFIER.matcher(t).matches());
            Optional<String> keyDefaults = repair == Repair.KEY_LOOKUP ? missingKeyDefaults(crash) : Optional.empty();
            if (!plainTargets) {
                keyDefaults.ifPresent(code -> plan.add(new Heal(code, HealResume.SKIP)));
                if (plan.isEmpty()) {
                    return List.of(new Reraise("the failing assignment binds no plain name: "
                            + crash.statement().source()));
                }
            } else {
                for (String code : assignmentHeals(repair, crash, targets, keyDefaults)) {
                    plan.add(new Heal(code, HealResume.SKIP));
                }
            }
        } else if (kind.equals("return")) {
            if (!crash.inFunction()) {
                return List.of(new Reraise("a return outside a function cannot be resumed by returning"));
            }
            plan.add(new Heal(RETURN_SLOT + " = " + repair.returnValue, HealResume.RETURN));
        } else if (SKIPPABLE_KINDS.contains(kind)) {
            plan.add(new Heal(SKIP_CODE, HealResume.SKIP));
        } else {
            return List.of(new Reraise("no rule heals a '" + kind + "' statement"));
        }
        plan.add(new Reraise("every candidate heal for " + crash.exceptionType() + " was refused"));
        return plan;
    }

    /**
     * Default for a missing key: the assignment with its value's loads {@code M[K]} of a dict-typed
     * local M rewritten to {@code M.get(K, D)}; D is {@code 0} for an arithmetic operand, else
     * {@code None}. A key that is a local whose repr is not the missing key is left alone.
     */
    private static Optional<String> missingKeyDefaults(CrashObservation crash) {
        return StatementShapes.assignment(crash.statement().source()).flatMap(assignment ->
                StatementShapes.rewriteLoads(assignment.value(), load -> {
                    if (crash.local(load.mapping()).filter(RulesAgent::isMappingType).isEmpty()) {
                        return Optional.empty();
                    }
                    if (IDENTIFIER.matcher(load.key()).matches() && crash.local(load.key())
                            .filter(key -> !key.repr().equals(crash.exceptionMessage())).isPresent()) {
                        return Optional.empty();
                    }
                    return Optional.of(load.arithmeticOperand() ? "0" : "None");
                }).map(value -> assignment.target() + " = " + value));
    }

    /**
     * Restore a dropped conversion: for a TypeError naming {@code str}, the locals read by the failing
     * (simple) statement that are {@code str} holding an int or float literal are converted back,
     * to be followed by a retry of the statement.
     */
    private static Optional<String> droppedConversions(CrashObservation crash) {
        if (!crash.exceptionType().equals("TypeError") || !MENTIONS_STR.matcher(crash.exceptionMessage()).find()
                || !SIMPLE_KINDS.contains(crash.statement().kind())) {
            return Optional.empty();
        }
        List<String> lines = new ArrayList<>();
        for (String name : StatementShapes.names(crash.statement().source())) {
            crash.local(name).filter(local -> local.type().equals("str")).ifPresent(local -> {
                if (INT_TEXT.matcher(local.repr()).matches()) {
                    lines.add(name + " = int(" + name + ")");
                } else if (FLOAT_TEXT.matcher(local.repr()).matches()) {
                    lines.add(name + " = float(" + name + ")");
                }
            });
        }
        return lines.isEmpty() ? Optional.empty() : Optional.of(String.join("\n", lines));
    }

    /**
     * The value of an early return, shaped like the function's own {@code return} statements: among
     * those returning a literal, a name, or a tuple of these, the one with the fewest names the
     * function assigns but has not bound yet (first in source order on ties). Bound names keep their
     * values; unbound ones become a neutral value: {@code 0.0} or {@code 0} when every assignment the
     * function makes to the name is arithmetic (float when one has a float literal or a true
     * division), {@code None} otherwise. Names neither local nor assigned (globals) are kept. A
     * generator, or a function with no such return, returns {@code None}.
     */
    static String earlyReturnValue(CrashObservation crash) {
        String source = crash.functionSource();
        if (source.isBlank() || FunctionSource.isGenerator(source)) {
            return "None";
        }
        List<String> parameters = FunctionSource.parameters(source);
        String best = "None";
        int fewestUnbound = Integer.MAX_VALUE;
        for (String expression : FunctionSource.returnExpressions(source)) {
            String expr = expression.strip();
            List<String> parts = FunctionSource.splitTopLevel(expr, ',');
            if (parts.size() == 1 && expr.startsWith("(") && expr.endsWith(")")
                    && StatementShapes.isBalanced(expr.substring(1, expr.length() - 1))) {
                String inner = expr.substring(1, expr.length() - 1);
                if (FunctionSource.splitTopLevel(inner, ',').size() > 1) {
                    parts = FunctionSource.splitTopLevel(inner, ',');
                }
            }
            boolean tuple = parts.size() > 1;
            if (tuple && parts.get(parts.size() - 1).isBlank()) {
                parts = parts.subList(0, parts.size() - 1);
            }
            List<String> rendered = new ArrayList<>();
            int unbound = 0;
            for (String part : parts) {
                String element = part.strip();
                if (RETURN_LITERAL.matcher(element).matches()) {
                    rendered.add(element);
                } else if (IDENTIFIER.matcher(element).matches()) {
                    List<String> assigned = FunctionSource.assignedValues(source, element);
                    if (crash.local(element).isPresent() || parameters.contains(element) || assigned.isEmpty()) {
                        rendered.add(element);
                    } else {
                        unbound++;
                        rendered.add(neutralValue(assigned));
                    }
                } else {
                    rendered = null;
                    break;
                }
            }
            if (rendered == null || rendered.isEmpty() || unbound >= fewestUnbound) {
                continue;
            }
            fewestUnbound = unbound;
            best = !tuple ? rendered.get(0)
                    : rendered.size() == 1 ? rendered.get(0) + "," : String.join(", ", rendered);
        }
        return best;
    }

    private static String neutralValue(List<String> assignedValues) {
        boolean numeric = assignedValues.stream().allMatch(value -> value.indexOf('\'') < 0
                && value.indexOf('"') < 0 && ARITHMETIC_VALUE.matcher(value).find());
        if (!numeric) {
            return "None";
        }
        boolean floating = assignedValues.stream().anyMatch(value -> FLOAT_LITERAL.matcher(value).find()
                || TRUE_DIVISION.matcher(value).find());
        return floating ? "0.0" : "0";
    }

    private static Repair repairFor(CrashObservation crash) {
        return switch (crash.exceptionType()) {
            case "KeyError" -> Repair.KEY_LOOKUP;
            case "AttributeError" ->
                    NONE_ATTRIBUTE.matcher(crash.exceptionMessage()).find() ? Repair.NONE_ATTRIBUTE : null;
            case "ZeroDivisionError" -> Repair.DIVISION;
            case "TypeError", "ValueError", "IndexError" -> Repair.DEFAULT_VALUE;
            default -> null;
        };
    }

    /** Candidate heal codes for an assignment, most specific first; never empty. */
    private static List<String> assignmentHeals(Repair repair, CrashObservation crash, List<String> targets,
            Optional<String> keyDefaults) {
        String source = crash.statement().source();
        List<String> heals = new ArrayList<>();
        switch (repair) {
            case KEY_LOOKUP -> {
                StatementShapes.subscriptRead(source)
                        .filter(read -> targets.equals(List.of(read.target())))
                        .filter(read -> isMappingReachable(read, crash))
                        .ifPresent(read -> heals.add(read.target() + " = " + read.mapping() + ".get("
                                + (StatementShapes.isTupleKey(read.key()) ? "(" + read.key() + ")" : read.key())
                                + ")"));
                if (heals.isEmpty()) {
                    keyDefaults.ifPresent(heals::add);
                }
                heals.add(bindAll(targets, "None"));
            }
            case NONE_ATTRIBUTE -> heals.add(bindAll(targets, "None"));
            case DIVISION -> {
                var division = StatementShapes.division(source)
                        .filter(d -> targets.equals(List.of(d.target())));
                if (division.isPresent()) {
                    var d = division.get();
                    String zero = zeroOf(d, crash);
                    heals.add(d.target() + " = " + d.dividend() + " " + d.operator() + " " + d.divisor()
                            + " if " + d.divisor() + " else " + zero);
                    heals.add(bindAll(targets, zero));
                } else {
                    heals.add(bindAll(targets, "0"));
                }
            }
            case DEFAULT_VALUE -> {
                List<String> unbound = targets.stream().filter(t -> crash.local(t).isEmpty()).toList();
                heals.add(unbound.isEmpty() ? SKIP_CODE : bindAll(unbound, "None"));
            }
        }
        return heals;
    }

    /**
     * The mapping is read from a local: a plain name must be a local whose type is a mapping; an
     * attribute path must start at a local (its type is not observable, so the heal may still be
     * refused, and the plan then falls back to {@code None}).
     */
    private static boolean isMappingReachable(StatementShapes.SubscriptRead read, CrashObservation crash) {
        var root = crash.local(read.root());
        if (root.isEmpty()) {
            return false;
        }
        return !read.mapping().equals(read.root()) || isMappingType(root.get());
    }

    private static boolean isMappingType(ObservedLocal local) {
        String type = local.type().toLowerCase();
        return type.contains("dict") || type.contains("mapping") || type.equals("counter")
                || type.equals("chainmap");
    }

    /**
     * True division always yields a float; floor division and modulo yield a float when an operand
     * is a float literal or a float local.
     */
    private static String zeroOf(StatementShapes.Division division, CrashObservation crash) {
        if (division.operator().equals("/")
                || mentionsFloat(division.dividend(), crash) || mentionsFloat(division.divisor(), crash)) {
            return "0.0";
        }
        return "0";
    }

    private static boolean mentionsFloat(String operand, CrashObservation crash) {
        if (FLOAT_LITERAL.matcher(operand).find()) {
            return true;
        }
        Matcher names = NAME_TOKEN.matcher(operand);
        while (names.find()) {
            if (crash.local(names.group()).filter(local -> local.type().equals("float")).isPresent()) {
                return true;
            }
        }
        return false;
    }

    private static String bindAll(List<String> names, String value) {
        return names.stream().map(name -> name + " = " + value).collect(Collectors.joining("\n"));
    }

    /**
     * One call of a function as far as the crash context can tell: the function (file and name),
     * the callers' lines, and its parameters' current values; plus where it crashed and its locals.
     * Two crashes with the same key are taken to be in the same call (a call repeated with equal
     * arguments from the same place behaves the same, so conflating them is harmless here).
     */
    private record Invocation(String key, String site, Map<String, String> state) {

        static Invocation of(CrashObservation crash) {
            String file = crash.statement().file();
            if (!crash.inFunction() || crash.functionSource().isBlank() || file.isEmpty()) {
                return null;
            }
            List<ObservedFrame> frames = crash.traceback();
            int at = -1;
            for (int i = 0; i < frames.size(); i++) {
                if (frames.get(i).file().equals(file) && frames.get(i).line() == crash.statement().line()) {
                    at = i;
                }
            }
            if (at < 0) {
                return null;
            }
            StringBuilder key = new StringBuilder(file).append(':').append(frames.get(at).function());
            for (int i = 0; i < at; i++) {
                key.append(" <- ").append(frames.get(i).file()).append(':').append(frames.get(i).line());
            }
            for (String parameter : FunctionSource.parameters(crash.functionSource())) {
                key.append(" | ").append(parameter).append('=')
                        .append(crash.local(parameter).map(local -> local.type() + ":" + local.repr()).orElse("?"));
            }
            Map<String, String> state = new TreeMap<>();
            crash.locals().forEach(local -> state.put(local.name(), local.type() + ":" + local.repr()));
            return new Invocation(key.toString(), file + ":" + crash.statement().line(), state);
        }
    }

    /** The last decision at a heal point, where it was, and the names its heal bound. */
    private record Visit(Invocation invocation, HealResume resume, Set<String> bound) {
    }

    /** What the agent remembers of one attempt. */
    private static final class AttemptMemory {
        private final TreeMap<Integer, Visit> visits = new TreeMap<>();
        private final Set<String> failedSites = new HashSet<>();

        /**
         * True when a local repair already failed for this crash: the site is one where that was seen
         * before; or the latest earlier heal point in the same call was healed and resumed (skip or
         * retry) and the call crashed again, at another statement or at the same one with no local
         * changed other than those the heal bound (no progress). Records the sites involved.
         */
        boolean repairFailedBefore(int healPoint, Invocation here) {
            if (failedSites.contains(here.site())) {
                return true;
            }
            Visit last = null;
            for (Visit visit : visits.headMap(healPoint, false).values()) {
                if (visit.invocation().key().equals(here.key())) {
                    last = visit;
                }
            }
            if (last == null || last.resume() == null || last.resume() == HealResume.RETURN) {
                return false;
            }
            boolean failed = !last.invocation().site().equals(here.site())
                    || withoutNames(last.invocation().state(), last.bound()).equals(withoutNames(here.state(), last.bound()));
            if (failed) {
                failedSites.add(last.invocation().site());
                failedSites.add(here.site());
            }
            return failed;
        }

        void record(int healPoint, Invocation here, AgentDecision step, CrashObservation crash) {
            HealResume resume = null;
            Set<String> bound = new HashSet<>(crash.statement().targets());
            if (step instanceof Heal heal) {
                resume = heal.resume();
                Matcher names = HEAL_BINDING.matcher(heal.code());
                while (names.find()) {
                    bound.add(names.group(1));
                }
            }
            visits.put(healPoint, new Visit(here, resume, bound));
        }

        private static Map<String, String> withoutNames(Map<String, String> state, Set<String> names) {
            Map<String, String> out = new TreeMap<>(state);
            out.keySet().removeAll(names);
            return out;
        }
    }
}
