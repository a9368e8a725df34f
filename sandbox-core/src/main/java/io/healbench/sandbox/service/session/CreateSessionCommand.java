package io.healbench.sandbox.service.session;

import io.healbench.common.guard.GuardMode;
import io.healbench.sandbox.service.model.Variant;
import java.util.Map;

/** A request for a new session, as the domain sees it; no guard mode is the default one. */
public record CreateSessionCommand(String instanceId, Variant variant, String requestId, boolean intercept, Map<String, String> labels,
                                   GuardMode guardMode, String expectedDigest) {

    public CreateSessionCommand {
        guardMode = guardMode == null ? GuardMode.DEFAULT : guardMode;
        expectedDigest = expectedDigest == null ? "" : expectedDigest;
    }
}
