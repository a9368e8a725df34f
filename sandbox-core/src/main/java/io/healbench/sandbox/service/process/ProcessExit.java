package io.healbench.sandbox.service.process;

import io.healbench.common.outcome.ExitCause;

/**
 * Why a session process ended, with a detail for people. For {@link ExitCause#LIMIT} the detail starts with the limit
 * ({@code cpu:}, {@code memory:}, {@code file-size:}); for {@link ExitCause#SIGNAL} with the signal's name.
 */
public record ProcessExit(ExitCause cause, String detail) {}
