package io.healbench.agent.service.external;

/** What an external attempt has left; -1 means no limit. */
public record ExternalBudget(long wallMsLeft, int actionsLeft, int probesLeft, int healsLeft) {
}
