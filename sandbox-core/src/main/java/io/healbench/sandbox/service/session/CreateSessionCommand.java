package io.healbench.sandbox.service.session;

import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxException.Kind;
import io.healbench.sandbox.service.model.Variant;
import java.util.List;
import java.util.Map;

/** A request for a new session, as the domain sees it; an empty guard mode is enforce. */
public record CreateSessionCommand(String instanceId, Variant variant, String requestId, boolean intercept, Map<String, String> labels,
                                   String guardMode, String expectedDigest) {

    /** HealGuard's modes in the healed process (healrt/healrt/guard.py). */
    public static final List<String> GUARD_MODES = List.of("enforce", "observe", "off");

    public CreateSessionCommand {
        guardMode = guardMode == null || guardMode.isEmpty() ? "enforce" : guardMode;
        expectedDigest = expectedDigest == null ? "" : expectedDigest;
        if (!GUARD_MODES.contains(guardMode)) {
            throw new SandboxException(Kind.INVALID_ARGUMENT, "GUARD_MODE_INVALID",
                    "guard_mode must be one of " + String.join(", ", GUARD_MODES) + ", got '" + guardMode + "'");
        }
    }
}
