package io.healbench.sandbox.service.heal;

import io.healbench.sandbox.service.model.HealAnalysis;
import java.util.ArrayList;
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

    /**
     * The verdict given what the paused state says: guard-service follows each heal source by the one name Δk gives it,
     * so a CLEAN verdict on a source whose object the frame also holds under another name (an alias made before the
     * crash) proves nothing about that other name, and becomes UNKNOWN.
     */
    public StaticVerdict consideringAliases(List<HealAnalysis.DeltaEntry> delta) {
        if (!"CLEAN".equals(verdict)) {
            return this;
        }
        List<String> aliased = delta.stream().filter(d -> !d.also().isEmpty())
                .map(d -> d.location() + " (its owner is also " + String.join(", ", d.also()) + ")").toList();
        if (aliased.isEmpty()) {
            return this;
        }
        List<String> gaps = new ArrayList<>(incomplete);
        gaps.add("the analysis follows each source by one name, and the paused frame reaches " + String.join("; ", aliased));
        return new StaticVerdict("UNKNOWN", source, sinkOp, keyInput, witness, List.copyOf(gaps));
    }

    /** One line for the guard decision: the verdict and its evidence, capped. */
    public String summary() {
        String text = switch (verdict) {
            case "TAINTED" -> "TAINTED: " + source + " reaches " + sinkOp + " (" + keyInput + "); flow: " + String.join(" -> ", witness);
            case "UNKNOWN" -> "UNKNOWN: no flow found; not followed: " + String.join("; ", incomplete);
            default -> verdict + ": no flow from the heal's sources to a protected operation";
        };
        return text.length() <= 2000 ? text : text.substring(0, 2000) + "...";
    }
}
