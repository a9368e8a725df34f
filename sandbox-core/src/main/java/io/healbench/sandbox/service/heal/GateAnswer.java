package io.healbench.sandbox.service.heal;

import java.util.List;

/** The gate's answer: allowed or not, with one human-readable diagnostic per offending construct. */
public record GateAnswer(boolean allowed, List<String> diagnostics, String gateVersion) {

    public String summary() {
        return diagnostics.isEmpty() ? (allowed ? "accepted" : "rejected without diagnostics") : String.join("; ", diagnostics);
    }
}
