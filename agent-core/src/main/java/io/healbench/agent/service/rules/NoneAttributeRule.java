package io.healbench.agent.service.rules;

import io.healbench.agent.service.CrashObservation;
import java.util.List;
import java.util.regex.Pattern;

/**
 * AttributeError on {@code None}: a value the program expected is missing, so the targets become {@code None} too.
 * An attribute missing on a real object is a different bug, which no default repairs.
 */
final class NoneAttributeRule implements HealRule {

    private static final Pattern NONE_ATTRIBUTE = Pattern.compile("^'NoneType' object has no attribute ");

    @Override
    public boolean handles(CrashObservation crash) {
        return crash.exceptionType().equals("AttributeError")
                && NONE_ATTRIBUTE.matcher(crash.exceptionMessage()).find();
    }

    @Override
    public String returnValue() {
        return "None";
    }

    @Override
    public List<String> assignmentHeals(CrashObservation crash, List<String> targets) {
        return List.of(HealRule.bindAll(targets, "None"));
    }
}
