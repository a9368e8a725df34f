package io.healbench.common.backbone;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The configured backbones (a YAML file, docs/agents.md "Backbones") and ad-hoc ones named on the command line as
 * {@code <provider>:<model>@<base-url>}. Every field is checked when the file loads, so a typo fails the run before
 * it starts rather than in the middle of an attempt.
 */
public final class BackboneCatalog {

    /** The variable an ad-hoc backbone reads its key from. */
    public static final String AD_HOC_KEY_ENV = "HEALBENCH_LLM_API_KEY";

    static final double DEFAULT_TEMPERATURE = 0.0;
    static final int DEFAULT_MAX_OUTPUT_TOKENS = 4096;
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(120);
    static final int DEFAULT_MAX_RETRIES = 2;

    private static final Set<String> FIELDS = Set.of("provider", "model", "base_url", "api_key_env",
            "api_key_required", "temperature", "seed", "max_output_tokens", "timeout_s", "max_retries", "prices");
    private static final Set<String> PRICE_FIELDS = Set.of("input", "cached_input", "output");

    private final Map<String, Backbone> byName;

    private BackboneCatalog(Map<String, Backbone> byName) {
        this.byName = Collections.unmodifiableMap(byName);
    }

    public static BackboneCatalog empty() {
        return new BackboneCatalog(new LinkedHashMap<>());
    }

    /** Reads a backbones file; a missing file is an empty catalog, a malformed one a {@link BackboneException}. */
    public static BackboneCatalog load(Path file) {
        if (!Files.isRegularFile(file)) {
            return empty();
        }
        JsonNode root;
        try {
            root = new ObjectMapper(new YAMLFactory()).readTree(file.toFile());
        } catch (IOException e) {
            throw new BackboneException(file + ": not valid YAML: " + e.getMessage());
        }
        JsonNode entries = root == null ? null : root.get("backbones");
        if (entries == null || !entries.isObject()) {
            throw new BackboneException(file + ": expected a top-level 'backbones' mapping of name to backbone");
        }
        Map<String, Backbone> byName = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = entries.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            try {
                byName.put(entry.getKey(), parse(entry.getKey(), entry.getValue()));
            } catch (BackboneException e) {
                throw new BackboneException(file + ": " + e.getMessage());
            }
        }
        return new BackboneCatalog(byName);
    }

    public Map<String, Backbone> all() {
        return byName;
    }

    /**
     * The backbone a run names: a configured one, or an ad-hoc {@code <provider>:<model>@<base-url>} priced by the
     * two prices (both 0: unpriced).
     */
    public Backbone resolve(String spec, double priceInput, double priceOutput) {
        if (spec == null || spec.isBlank()) {
            throw new BackboneException("an LLM agent needs a backbone (--backbone NAME or <provider>:<model>@<base-url>)");
        }
        Backbone named = byName.get(spec);
        if (named != null) {
            return named;
        }
        int colon = spec.indexOf(':');
        int at = spec.indexOf('@');
        if (colon <= 0 || at < colon + 2 || at == spec.length() - 1) {
            throw new BackboneException("unknown backbone '" + spec + "'; configured: "
                    + (byName.isEmpty() ? "none" : String.join(", ", byName.keySet()))
                    + "; or name one as <provider>:<model>@<base-url>");
        }
        Provider provider = Provider.parse(spec.substring(0, colon));
        Optional<Prices> prices = priceInput == 0 && priceOutput == 0
                ? Optional.empty() : Optional.of(new Prices(priceInput, priceInput, priceOutput));
        return new Backbone(spec, provider, spec.substring(colon + 1, at), spec.substring(at + 1), AD_HOC_KEY_ENV,
                true, DEFAULT_TEMPERATURE, Optional.empty(), DEFAULT_MAX_OUTPUT_TOKENS, DEFAULT_TIMEOUT,
                DEFAULT_MAX_RETRIES, prices);
    }

    private static Backbone parse(String name, JsonNode node) {
        if (!node.isObject()) {
            throw new BackboneException("backbone " + name + ": expected a mapping");
        }
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String field = it.next();
            if (!FIELDS.contains(field)) {
                throw new BackboneException("backbone " + name + ": unknown field '" + field + "'; fields are: "
                        + String.join(", ", new TreeSet<>(FIELDS)));
            }
        }
        Optional<Prices> prices = Optional.empty();
        JsonNode priceNode = node.get("prices");
        if (priceNode != null && !priceNode.isNull()) {
            for (Iterator<String> it = priceNode.fieldNames(); it.hasNext(); ) {
                String field = it.next();
                if (!PRICE_FIELDS.contains(field)) {
                    throw new BackboneException("backbone " + name + ": unknown price '" + field
                            + "'; prices are input, cached_input and output (USD per million tokens)");
                }
            }
            double input = number(name, priceNode, "input", -1);
            double output = number(name, priceNode, "output", -1);
            if (input < 0 || output < 0) {
                throw new BackboneException("backbone " + name + ": prices need input and output");
            }
            prices = Optional.of(new Prices(input, number(name, priceNode, "cached_input", input), output));
        }
        JsonNode seed = node.get("seed");
        return new Backbone(name,
                Provider.parse(text(name, node, "provider")),
                text(name, node, "model"),
                text(name, node, "base_url"),
                text(name, node, "api_key_env"),
                !node.has("api_key_required") || node.get("api_key_required").asBoolean(true),
                number(name, node, "temperature", DEFAULT_TEMPERATURE),
                seed == null || seed.isNull() ? Optional.empty() : Optional.of(seed.asInt()),
                (int) number(name, node, "max_output_tokens", DEFAULT_MAX_OUTPUT_TOKENS),
                Duration.ofMillis((long) (number(name, node, "timeout_s", DEFAULT_TIMEOUT.toSeconds()) * 1000)),
                (int) number(name, node, "max_retries", DEFAULT_MAX_RETRIES),
                prices);
    }

    private static String text(String name, JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual() || value.asText().isBlank()) {
            throw new BackboneException("backbone " + name + ": " + field + " is required (a string)");
        }
        return value.asText();
    }

    private static double number(String name, JsonNode node, String field, double fallback) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return fallback;
        }
        if (!value.isNumber()) {
            throw new BackboneException("backbone " + name + ": " + field + " must be a number");
        }
        return value.asDouble();
    }
}
