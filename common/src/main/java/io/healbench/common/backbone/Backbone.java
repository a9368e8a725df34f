package io.healbench.common.backbone;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One model behind one endpoint: what an LLM agent talks to. The API key is never part of it: {@code apiKeyEnv}
 * names the environment variable the worker reads it from when it builds the client.
 *
 * @param apiKeyRequired false for local servers that take any key (the key then defaults to a placeholder)
 * @param maxOutputTokens always set explicitly: providers' clients default differently (Anthropic's to 1024)
 */
public record Backbone(
        String name,
        Provider provider,
        String model,
        String baseUrl,
        String apiKeyEnv,
        boolean apiKeyRequired,
        double temperature,
        Optional<Integer> seed,
        int maxOutputTokens,
        Duration timeout,
        int maxRetries,
        Optional<Prices> prices) {

    public Backbone {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(provider, "provider");
        requireText(model, name, "model");
        requireText(baseUrl, name, "base_url");
        requireText(apiKeyEnv, name, "api_key_env");
        if (maxOutputTokens < 1) {
            throw new BackboneException("backbone " + name + ": max_output_tokens must be at least 1");
        }
        if (maxRetries < 0) {
            throw new BackboneException("backbone " + name + ": max_retries must not be negative");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new BackboneException("backbone " + name + ": timeout_s must be positive");
        }
    }

    public boolean priced() {
        return prices.isPresent();
    }

    /** Everything about the backbone a record may keep: the key's variable name, never its value. */
    public Map<String, Object> describe() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", name);
        out.put("provider", provider.wireName());
        out.put("model", model);
        out.put("base_url", baseUrl);
        out.put("api_key_env", apiKeyEnv);
        out.put("temperature", temperature);
        seed.ifPresent(value -> out.put("seed", value));
        out.put("max_output_tokens", maxOutputTokens);
        out.put("timeout_s", timeout.toMillis() / 1000.0);
        out.put("max_retries", maxRetries);
        prices.ifPresent(value -> {
            Map<String, Object> perMillion = new LinkedHashMap<>();
            perMillion.put("input", value.inputPerMillion());
            perMillion.put("cached_input", value.cachedInputPerMillion());
            perMillion.put("output", value.outputPerMillion());
            out.put("prices_usd_per_mtok", perMillion);
        });
        return out;
    }

    private static void requireText(String value, String backbone, String field) {
        if (value == null || value.isBlank()) {
            throw new BackboneException("backbone " + backbone + ": " + field + " is required");
        }
    }
}
