package io.healbench.agent.service.rules;

import io.healbench.agent.service.CrashObservation;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * TypeError: when the message names {@code str}, the likely bug is a dropped conversion, so the locals read by the
 * failing (simple) statement that are {@code str} holding an int or float literal are converted back
 * ({@code n = int(n)} / {@code float(n)}) and the statement is retried. Otherwise, or when that is refused, the
 * values the statement did not produce are defaulted as for any unusable value.
 */
final class TypeErrorRule extends DefaultValueRule {

    private static final Set<String> SIMPLE_KINDS = Set.of("assign", "annassign", "augassign", "expr", "return");
    private static final Pattern MENTIONS_STR = Pattern.compile("'str'|(?<![\\w'])str(?![\\w'])");
    private static final Pattern INT_TEXT = Pattern.compile("'\\s*[+-]?\\d+(?:_\\d+)*\\s*'");
    private static final Pattern FLOAT_TEXT = Pattern.compile(
            "'\\s*[+-]?(?:\\d+(?:_\\d+)*\\.(?:\\d+(?:_\\d+)*)?|\\.\\d+(?:_\\d+)*|\\d+(?:_\\d+)*)"
                    + "(?:[eE][+-]?\\d+)?\\s*'");

    TypeErrorRule() {
        super("TypeError");
    }

    @Override
    public Optional<String> retryHeal(CrashObservation crash) {
        if (!MENTIONS_STR.matcher(crash.exceptionMessage()).find()
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
}
