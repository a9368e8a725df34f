package io.healbench.agent.service;

import io.healbench.agent.cassette.CassetteMode;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * How an attempt's LLM agent runs: the backbone it names (a configured name or an ad-hoc
 * {@code <provider>:<model>@<base-url>} with its two prices), its limits, and its cassette directory and mode.
 */
public record LlmSettings(
        String backbone, double priceInputPerMillion, double priceOutputPerMillion, Limits limits,
        Optional<Path> cassetteDir, CassetteMode cassetteMode) {

    /** Offline agents: no backbone. */
    public static final LlmSettings NONE = new LlmSettings("", 0, 0, Limits.DEFAULTS, Optional.empty(), CassetteMode.OFF);

    public LlmSettings {
        Objects.requireNonNull(backbone, "backbone");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(cassetteDir, "cassetteDir");
        Objects.requireNonNull(cassetteMode, "cassetteMode");
        if (cassetteMode != CassetteMode.OFF && cassetteDir.isEmpty()) {
            throw new IllegalArgumentException("cassette mode " + cassetteMode + " needs a cassette directory");
        }
    }

    /** An LLM agent: one with a backbone. */
    public boolean isLlm() {
        return !backbone.isEmpty();
    }

    /**
     * Heals one heal point may submit before the runner reraises: an LLM agent's own limit (0: until its other
     * budgets run out), or the worker's setting for offline agents.
     */
    public int healTries(int offlineDefault) {
        return isLlm() ? limits.healsPerHealPoint() : offlineDefault;
    }
}
