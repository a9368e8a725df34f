package io.healbench.sandbox.service.process;

/**
 * Why a session process ended: {@code exited}, {@code signal}, {@code limit}, {@code timeout} or {@code killed},
 * with a detail for people. For {@code limit} the detail starts with the limit ({@code cpu:}, {@code memory:},
 * {@code file-size:}); for {@code signal} with the signal's name.
 */
public record ExitCause(String cause, String detail) {}
