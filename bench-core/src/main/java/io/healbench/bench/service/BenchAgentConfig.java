package io.healbench.bench.service;

import java.util.Objects;

/**
 * An LLM agent's configuration as a run keeps it: the wire form as JSON (handed to every attempt unchanged and kept
 * in the manifest), plus what bench-service checks before the run starts: the backbone, its ad-hoc prices, and
 * whether a money limit is set.
 */
public record BenchAgentConfig(String json, String backbone, double priceInputPerMillion, double priceOutputPerMillion,
        boolean limitsCost) {

    public static final BenchAgentConfig NONE = new BenchAgentConfig("{}", "", 0, 0, false);

    public BenchAgentConfig {
        Objects.requireNonNull(json, "json");
        Objects.requireNonNull(backbone, "backbone");
    }
}
