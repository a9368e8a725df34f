package io.healbench.sandbox.service.heal;

import io.healbench.common.guard.GuardDecision;

/**
 * What the static stage decided for a dry-run heal: commit it, or abort it (and why), and the decision recorded.
 * {@code verdict} goes to healrt with the commit (heal_commit's {@code static_verdict}, docs/control-protocol.md):
 * {@code clean}, {@code tainted}, {@code unknown}, or {@code unavailable} when there was no verdict.
 */
public record StaticDecision(boolean commit, String abortReason, GuardDecision decision, String verdict) {}
