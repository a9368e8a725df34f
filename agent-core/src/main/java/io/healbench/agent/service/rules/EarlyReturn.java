package io.healbench.agent.service.rules;

import io.healbench.agent.service.CrashObservation;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The value a function returns when a local repair of its call already failed: leaving the call is then likelier to
 * let the program go on than another local heal, provided the caller gets a value shaped like the function's own.
 */
final class EarlyReturn {

    private static final Pattern RETURN_LITERAL = Pattern.compile(
            "[+-]?(?:\\d[\\d_]*(?:\\.\\d*)?(?:[eE][+-]?\\d+)?|\\.\\d+)|None|True|False|\\(\\)|\\[\\]|\\{\\}"
                    + "|'[^'\\\\]*'|\"[^\"\\\\]*\"");
    private static final Pattern ARITHMETIC_VALUE = Pattern.compile("[-+*/%]|^\\(*\\d");
    private static final Pattern TRUE_DIVISION = Pattern.compile("(?<!/)/(?!/)");

    private EarlyReturn() {
    }

    /**
     * Shaped like the function's own {@code return} statements: among those returning a literal, a name, or a tuple
     * of these, the one with the fewest names the function assigns but has not bound yet (first in source order on
     * ties). Bound names keep their values; unbound ones become a neutral value: {@code 0.0} or {@code 0} when every
     * assignment the function makes to the name is arithmetic (float when one has a float literal or a true
     * division), {@code None} otherwise. Names neither local nor assigned (globals) are kept. A generator, or a
     * function with no such return, returns {@code None}.
     */
    static String value(CrashObservation crash) {
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
                } else if (StatementShapes.isName(element)) {
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
        boolean floating = assignedValues.stream().anyMatch(value -> StatementShapes.hasFloatLiteral(value)
                || TRUE_DIVISION.matcher(value).find());
        return floating ? "0.0" : "0";
    }
}
