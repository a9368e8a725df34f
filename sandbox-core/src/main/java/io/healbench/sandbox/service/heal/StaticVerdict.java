package io.healbench.sandbox.service.heal;

import io.healbench.sandbox.service.Abbreviation;
import java.util.List;

/**
 * guard-service's static verdict on a heal: TAINTED (with the source, the protected operation and the flow),
 * CLEAN, or UNKNOWN (with what could not be followed).
 */
public record StaticVerdict(String verdict, String source, String sinkOp, String keyInput, List<String> witness,
                            List<String> incomplete) {

    public boolean tainted() {
        return "TAINTED".equals(verdict);
    }

    /** The verdict as heal_commit's {@code static_verdict}: clean and tainted as such, anything else unknown. */
    public String forRuntime() {
        return switch (verdict) {
            case "TAINTED" -> "tainted";
            case "CLEAN" -> "clean";
            default -> "unknown";
        };
    }

    /** One line for the guard decision: the verdict and its evidence, capped. */
    public String summary() {
        String text = switch (verdict) {
            case "TAINTED" -> "TAINTED: " + source + " reaches " + sinkOp + " (" + keyInput + "); flow: " + String.join(" -> ", witness);
            case "UNKNOWN" -> "UNKNOWN: no flow found; not followed: " + String.join("; ", incomplete);
            default -> verdict + ": no flow from the heal's sources to a protected operation";
        };
        return Abbreviation.abbreviate(text, 2000);
    }
}
