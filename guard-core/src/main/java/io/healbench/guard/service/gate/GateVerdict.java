package io.healbench.guard.service.gate;

import java.util.List;

/** The gate's answer: allowed exactly when there is no diagnostic. */
public record GateVerdict(List<GateDiagnostic> diagnostics, String gateVersion) {

    public GateVerdict {
        diagnostics = List.copyOf(diagnostics);
    }

    public boolean allowed() {
        return diagnostics.isEmpty();
    }
}
