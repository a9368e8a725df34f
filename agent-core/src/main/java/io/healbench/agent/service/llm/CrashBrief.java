package io.healbench.agent.service.llm;

import io.healbench.agent.service.CrashObservation;
import io.healbench.agent.service.ObservedFrame;
import io.healbench.agent.service.ObservedLocal;

/**
 * The crash context an agent reads (the first message of a heal point, and {@code get_crash}): the exception, the
 * traceback, the crash statement, the capped locals, the enclosing function and the callers' source. The locals
 * arrive already capped by the sandbox (8,000 characters each, 30,000 in all).
 */
public final class CrashBrief {

    private CrashBrief() {
    }

    public static String render(CrashObservation crash) {
        StringBuilder out = new StringBuilder();
        out.append("Heal point ").append(crash.healPoint()).append(": ").append(crash.exceptionType());
        if (!crash.exceptionMessage().isEmpty()) {
            out.append(": ").append(crash.exceptionMessage());
        }
        out.append("\n\nTraceback (outermost first):\n");
        for (ObservedFrame frame : crash.traceback()) {
            out.append("  ").append(frame.file()).append(':').append(frame.line()).append(" in ").append(frame.function());
            if (!frame.sourceLine().isEmpty()) {
                out.append("\n      ").append(frame.sourceLine().strip());
            }
            out.append('\n');
        }
        out.append("\nCrash statement (").append(crash.statement().kind()).append(", ")
                .append(crash.statement().file()).append(':').append(crash.statement().line()).append("):\n")
                .append(crash.statement().source()).append('\n');
        out.append("\nLocals of the crashing frame:\n");
        if (crash.locals().isEmpty()) {
            out.append("  (none)\n");
        }
        for (ObservedLocal local : crash.locals()) {
            out.append("  ").append(local.name()).append(": ").append(local.type()).append(" = ").append(local.repr())
                    .append('\n');
        }
        out.append(crash.inFunction() ? "\nEnclosing function:\n" : "\nThe crash is at module level.\n");
        if (crash.inFunction() && !crash.functionSource().isEmpty()) {
            out.append(crash.functionSource().stripTrailing()).append('\n');
        }
        for (int i = 0; i < crash.callerSources().size(); i++) {
            out.append("\nCaller ").append(i + 1).append(" (innermost first):\n")
                    .append(crash.callerSources().get(i).stripTrailing()).append('\n');
        }
        return WorkspacePaths.relative(out.toString());
    }
}
