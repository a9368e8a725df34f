package io.healbench.guard.service.analysis;

import java.util.ArrayList;
import java.util.List;

/** Which inputs of a protected operation's call are checked (key input, also_check), and whether `when` holds. */
final class SinkMatcher {

    /** One checked input: its parameter name ("self" for the receiver) and value. */
    record Input(String name, Value value) {}

    private SinkMatcher() {}

    /**
     * The key input and also-checked inputs present in the call. {@code signature}: positional parameter names
     * not counting self, or null (then also_check parameters follow the key input in order, as healrt assumes).
     */
    static List<Input> inputs(ProtectionPolicy.Operation op, CallShape call, List<String> signature) {
        List<Input> found = new ArrayList<>();
        Object index = op.index();
        if ("receiver".equals(index) && call.receiver() != null) {
            found.add(new Input("self", call.receiver()));
        }
        Integer keyPosition = index instanceof Integer i ? i
                : "last".equals(index) ? Math.max(0, call.args().size() - 1) : null;
        List<String> names = new ArrayList<>();
        names.add(op.arg());
        names.addAll(op.alsoCheck());
        for (int number = 0; number < names.size(); number++) {
            String name = names.get(number);
            if (name == null || (number == 0 && "receiver".equals(index))) {
                continue;
            }
            Value keyword = call.keywords().get(name);
            if (keyword != null) {
                found.add(new Input(name, keyword));
                continue;
            }
            Integer position = number == 0 ? keyPosition
                    : signature != null && signature.contains(name) ? Integer.valueOf(signature.indexOf(name))
                    : keyPosition != null ? Integer.valueOf(keyPosition + number) : null;
            if (position == null) {
                continue;
            }
            if (position < call.args().size()) {
                found.add(new Input(name, call.args().get(position)));
            } else if (call.starArgs() != null) {
                found.add(new Input(name, call.starArgs()));  // a starred argument may fill this position
            } else if (call.starKeywords() != null) {
                found.add(new Input(name, call.starKeywords()));
            }
        }
        return found;
    }

    /** Whether the operation's `when` holds for this call; an unknown value holds (conservative). */
    static boolean applies(ProtectionPolicy.Operation op, CallShape call, List<String> signature) {
        ProtectionPolicy.When when = op.when();
        if (when == null || !when.understood()) {
            return true;
        }
        PyNode expression = call.keywordExprs().get(when.param());
        if (expression == null && signature != null && signature.contains(when.param())) {
            int position = signature.indexOf(when.param());
            if (position < call.argExprs().size()) {
                expression = call.argExprs().get(position);
            } else if (call.starArgs() != null || call.starKeywords() != null) {
                return true;
            }
        }
        if (expression == null) {
            return false;  // the parameter's default: a read mode, no write flags
        }
        if (!when.tokens().isEmpty()) {
            if (expression.is("Constant") && expression.raw("value") instanceof String mode) {
                return when.tokens().stream().anyMatch(mode::contains);
            }
            return true;
        }
        return flagsMayHold(expression, when);
    }

    /** {@code os.O_WRONLY | os.O_CREAT}: holds if a named flag is one of the listed ones, or anything is not a flag name. */
    private static boolean flagsMayHold(PyNode expression, ProtectionPolicy.When when) {
        if (expression.isAny("Name", "Attribute")) {
            String name = expression.is("Name") ? expression.str("id") : expression.str("attr");
            return when.flags().contains(name) || !name.startsWith("O_");
        }
        if (expression.is("BinOp")) {
            return flagsMayHold(expression.node("left"), when) || flagsMayHold(expression.node("right"), when);
        }
        return true;
    }
}
