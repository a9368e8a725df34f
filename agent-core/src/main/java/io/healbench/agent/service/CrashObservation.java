package io.healbench.agent.service;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What an agent sees of one crash at a heal point: the exception, the failing statement, the live
 * locals of the crashing frame (each as type plus capped repr), the source of the enclosing
 * function (empty at module level or when unknown), the traceback (outermost first; it may go on
 * past the crashing frame into callees that raised) and the sources of the calling functions (innermost first).
 */
public record CrashObservation(
        int healPoint,
        String exceptionType,
        String exceptionMessage,
        ObservedStatement statement,
        List<ObservedLocal> locals,
        boolean inFunction,
        String functionSource,
        List<ObservedFrame> traceback,
        List<String> callerSources) {

    public CrashObservation {
        Objects.requireNonNull(exceptionType, "exceptionType");
        exceptionMessage = exceptionMessage == null ? "" : exceptionMessage;
        Objects.requireNonNull(statement, "statement");
        locals = List.copyOf(locals);
        functionSource = functionSource == null ? "" : functionSource;
        traceback = List.copyOf(traceback);
        callerSources = List.copyOf(callerSources);
    }

    /** A crash without function source or traceback. */
    public CrashObservation(int healPoint, String exceptionType, String exceptionMessage, ObservedStatement statement,
            List<ObservedLocal> locals, boolean inFunction) {
        this(healPoint, exceptionType, exceptionMessage, statement, locals, inFunction, "", List.of(), List.of());
    }

    /** The local bound to {@code name} in the crashing frame, if any. */
    public Optional<ObservedLocal> local(String name) {
        return locals.stream().filter(local -> local.name().equals(name)).findFirst();
    }
}
