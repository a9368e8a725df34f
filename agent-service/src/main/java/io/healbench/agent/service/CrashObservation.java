package io.healbench.agent.service;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What an agent sees of one crash at a heal point: the exception, the failing statement and the
 * live locals of the crashing frame (each as type plus capped repr).
 */
public record CrashObservation(
        int healPoint,
        String exceptionType,
        String exceptionMessage,
        ObservedStatement statement,
        List<ObservedLocal> locals,
        boolean inFunction) {

    public CrashObservation {
        Objects.requireNonNull(exceptionType, "exceptionType");
        exceptionMessage = exceptionMessage == null ? "" : exceptionMessage;
        Objects.requireNonNull(statement, "statement");
        locals = List.copyOf(locals);
    }

    /** The local bound to {@code name} in the crashing frame, if any. */
    public Optional<ObservedLocal> local(String name) {
        return locals.stream().filter(local -> local.name().equals(name)).findFirst();
    }
}
