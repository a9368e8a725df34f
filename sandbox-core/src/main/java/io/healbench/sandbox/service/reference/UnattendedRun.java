package io.healbench.sandbox.service.reference;

import io.healbench.sandbox.service.model.Outcome;

/** The end of a session nobody steered: its outcome, and whether the runtime reported it (or the sandbox inferred it). */
public record UnattendedRun(Outcome outcome, boolean reported) {}
