package io.healbench.sandbox.service.model;

/** The answer to a probe: what it printed, the repr of its last expression, or its traceback. */
public record ProbeOutcome(boolean ok, String output, String value, String error) {}
