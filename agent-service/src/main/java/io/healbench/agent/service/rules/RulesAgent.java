package io.healbench.agent.service.rules;

import io.healbench.agent.service.AgentDecision;
import io.healbench.agent.service.AgentDecision.Heal;
import io.healbench.agent.service.AgentDecision.Reraise;
import io.healbench.agent.service.CrashObservation;
import io.healbench.agent.service.HealPoint;
import io.healbench.agent.service.HealResume;
import io.healbench.agent.service.HealingAgent;
import io.healbench.agent.service.ObservedLocal;
import io.healbench.agent.service.RejectedHeal;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The offline baseline: writes HealCore heals from the live state of the crash (exception, failing
 * statement, locals), never from knowledge of a particular bug.
 *
 * <p>For each crash it builds an ordered plan: the most specific heal first, then more generic
 * ones, then a reraise. Each ask returns the first step of the plan not already refused at this
 * heal point, so a heal the gate or the dry run refused is replaced by a more conservative one.
 *
 * <p>Rules, by exception (first match wins):
 * <ol>
 *   <li>KeyError: an assignment {@code T = M[K]} whose mapping is reachable from a local becomes
 *       {@code T = M.get(K)}; any other assignment binds its targets to {@code None}.</li>
 *   <li>AttributeError on {@code None}: the targets become {@code None}.</li>
 *   <li>ZeroDivisionError: {@code T = A / B} becomes {@code T = A / B if B else 0}; otherwise the
 *       targets become a zero of the division's result type.</li>
 *   <li>TypeError, ValueError, IndexError: targets that already hold a value keep it, the others
 *       become {@code None}.</li>
 * </ol>
 * Whatever the exception, a {@code return} statement returns that rule's default, an expression
 * statement or an augmented assignment is skipped (its target keeps its value), and every other
 * statement kind is reraised.
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
        Set<String> refused = point.rejected().stream().map(RejectedHeal::code).collect(Collectors.toSet());
        List<AgentDecision> plan = plan(point.crash());
        for (AgentDecision step : plan) {
            if (!(step instanceof Heal heal) || !refused.contains(heal.code())) {
                return step;
            }
        }
        throw new IllegalStateException("a plan always ends with a reraise");
    }

    /** The ordered plan for a crash: candidate heals, most specific first, ending with a reraise. */
    List<AgentDecision> plan(CrashObservation crash) {
        Repair repair = repairFor(crash);
        if (repair == null) {
            return List.of(new Reraise("no rule for " + crash.exceptionType() + ": " + crash.exceptionMessage()));
        }
        String kind = crash.statement().kind();
        List<AgentDecision> plan = new ArrayList<>();
        if (ASSIGNMENT_KINDS.contains(kind)) {
            List<String> targets = crash.statement().targets();
            if (targets.isEmpty() || !targets.stream().allMatch(t -> IDENTIFIER.matcher(t).matches())) {
                return List.of(new Reraise("the failing assignment binds no plain name: " + crash.statement().source()));
            }
            for (String code : assignmentHeals(repair, crash, targets)) {
                plan.add(new Heal(code, HealResume.SKIP));
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
    private static List<String> assignmentHeals(Repair repair, CrashObservation crash, List<String> targets) {
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
}
