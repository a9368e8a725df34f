package io.healbench.agent.service.rules;

import io.healbench.agent.service.CrashObservation;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * ZeroDivisionError: {@code T = A / B} is guarded by its divisor ({@code T = A / B if B else 0}), which keeps the
 * division for every other value; a division the source does not show plainly binds the targets to zero instead. The
 * zero has the type the division would have had, so later arithmetic keeps its type.
 */
final class ZeroDivisionRule implements HealRule {

    private static final Pattern NAME_TOKEN = Pattern.compile("(?<![\\w.])[A-Za-z_]\\w*");

    @Override
    public boolean handles(CrashObservation crash) {
        return crash.exceptionType().equals("ZeroDivisionError");
    }

    @Override
    public String returnValue() {
        return "0";
    }

    @Override
    public List<String> assignmentHeals(CrashObservation crash, List<String> targets) {
        return StatementShapes.division(crash.statement().source())
                .filter(d -> targets.equals(List.of(d.target())))
                .map(d -> {
                    String zero = zeroOf(d, crash);
                    return List.of(d.target() + " = " + d.dividend() + " " + d.operator() + " " + d.divisor()
                            + " if " + d.divisor() + " else " + zero, HealRule.bindAll(targets, zero));
                })
                .orElseGet(() -> List.of(HealRule.bindAll(targets, "0")));
    }

    /**
     * True division always yields a float; floor division and modulo yield a float when an operand is a float
     * literal or a float local.
     */
    private static String zeroOf(StatementShapes.Division division, CrashObservation crash) {
        if (division.operator().equals("/")
                || mentionsFloat(division.dividend(), crash) || mentionsFloat(division.divisor(), crash)) {
            return "0.0";
        }
        return "0";
    }

    private static boolean mentionsFloat(String operand, CrashObservation crash) {
        if (StatementShapes.hasFloatLiteral(operand)) {
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
}
