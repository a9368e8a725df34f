package io.healbench.cli;

import io.healbench.proto.agent.v1.AgentConfig;
import io.healbench.proto.agent.v1.CassetteMode;
import io.healbench.proto.agent.v1.Limits;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The LLM agents' options of {@code healbench run} (docs/agents.md): the backbone and its file, ad-hoc prices, the
 * limits ({@code --limits key=value,...} and {@code --run-cost-limit}) and the cassette.
 *
 * @param backbonesFile absolute; null for the default ({@code $HEALBENCH_BACKBONES}, else config/backbones.yaml)
 * @param limits        as typed, checked: key to value
 * @param cassetteDir   absolute; null for none
 */
public record LlmOptions(
        String backbone,
        String backbonesFile,
        double priceIn,
        double priceOut,
        Map<String, String> limits,
        double runCostLimit,
        String cassetteDir,
        CassetteMode cassetteMode) {

    public static final LlmOptions NONE = new LlmOptions(null, null, 0, 0, Map.of(), 0, null, CassetteMode.CASSETTE_OFF);

    /** {@code --limits} keys, each with how it sets the wire's field. */
    private static final Map<String, BiConsumer<Limits.Builder, String>> LIMIT_KEYS = new LinkedHashMap<>();

    static {
        LIMIT_KEYS.put("calls", (b, v) -> b.setCallsPerAttempt(whole(v)));
        LIMIT_KEYS.put("calls_per_heal_point", (b, v) -> b.setCallsPerHealPoint(whole(v)));
        LIMIT_KEYS.put("tokens", (b, v) -> b.setTokensPerAttempt(whole(v)));
        LIMIT_KEYS.put("tokens_per_heal_point", (b, v) -> b.setTokensPerHealPoint(whole(v)));
        LIMIT_KEYS.put("cost_usd", (b, v) -> b.setCostUsdPerAttempt(amount(v)));
        LIMIT_KEYS.put("cost_usd_per_heal_point", (b, v) -> b.setCostUsdPerHealPoint(amount(v)));
        LIMIT_KEYS.put("wall_s", (b, v) -> b.setWallSecondsPerAttempt(whole(v)));
        LIMIT_KEYS.put("wall_s_per_heal_point", (b, v) -> b.setWallSecondsPerHealPoint(whole(v)));
        LIMIT_KEYS.put("probes", (b, v) -> b.setProbesPerAttempt(whole(v)));
        LIMIT_KEYS.put("probes_per_heal_point", (b, v) -> b.setProbesPerHealPoint(whole(v)));
        LIMIT_KEYS.put("format_errors", (b, v) -> b.setConsecutiveFormatErrors(whole(v)));
        LIMIT_KEYS.put("heals_per_heal_point", (b, v) -> b.setHealsPerHealPoint(whole(v)));
    }

    static String limitKeys() {
        return String.join(", ", LIMIT_KEYS.keySet());
    }

    /** Parses {@code key=value,key=value}; throws {@link CliArguments.UsageException} naming the bad part. */
    static Map<String, String> parseLimits(String text) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String part : text.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            int eq = part.indexOf('=');
            String key = eq < 0 ? part.strip() : part.substring(0, eq).strip();
            if (eq < 0 || !LIMIT_KEYS.containsKey(key)) {
                throw new CliArguments.UsageException("--limits takes key=value pairs with keys: " + limitKeys()
                        + "; got '" + part + "'");
            }
            String value = part.substring(eq + 1).strip();
            try {
                LIMIT_KEYS.get(key).accept(Limits.newBuilder(), value);
            } catch (IllegalArgumentException e) {
                throw new CliArguments.UsageException("--limits " + key + ": " + e.getMessage());
            }
            out.put(key, value);
        }
        return out;
    }

    public boolean given() {
        return backbone != null;
    }

    public AgentConfig toWire() {
        Limits.Builder limits = Limits.newBuilder();
        this.limits.forEach((key, value) -> LIMIT_KEYS.get(key).accept(limits, value));
        if (runCostLimit > 0) {
            limits.setRunCostUsd(runCostLimit);
        }
        AgentConfig.Builder config = AgentConfig.newBuilder()
                .setBackbone(backbone == null ? "" : backbone)
                .setPriceInputPerMtok(priceIn)
                .setPriceOutputPerMtok(priceOut)
                .setLimits(limits)
                .setCassetteMode(cassetteMode);
        if (cassetteDir != null) {
            config.setCassetteDir(cassetteDir);
        }
        return config.build();
    }

    /** The backbones file this run reads. */
    public Path backbonesPath(Path home) {
        if (backbonesFile != null) {
            return Path.of(backbonesFile);
        }
        String fromEnv = System.getenv("HEALBENCH_BACKBONES");
        return fromEnv != null && !fromEnv.isBlank() ? Path.of(fromEnv).toAbsolutePath()
                : home.resolve("config").resolve("backbones.yaml");
    }

    List<String> toArgs() {
        List<String> args = new ArrayList<>();
        if (backbone != null) {
            args.addAll(List.of("--backbone", backbone));
        }
        if (backbonesFile != null) {
            args.addAll(List.of("--backbones", backbonesFile));
        }
        if (priceIn > 0) {
            args.addAll(List.of("--price-in", Double.toString(priceIn)));
        }
        if (priceOut > 0) {
            args.addAll(List.of("--price-out", Double.toString(priceOut)));
        }
        if (!limits.isEmpty()) {
            List<String> pairs = new ArrayList<>();
            limits.forEach((key, value) -> pairs.add(key + "=" + value));
            args.addAll(List.of("--limits", String.join(",", pairs)));
        }
        if (runCostLimit > 0) {
            args.addAll(List.of("--run-cost-limit", Double.toString(runCostLimit)));
        }
        if (cassetteDir != null) {
            args.addAll(List.of("--llm-cassette", cassetteDir));
            if (cassetteMode == CassetteMode.CASSETTE_RECORD) {
                args.add("--record");
            } else if (cassetteMode == CassetteMode.CASSETTE_RECORD_MISSING) {
                args.add("--record-missing");
            }
        }
        return args;
    }

    private static int whole(String value) {
        try {
            int n = Integer.parseInt(value);
            if (n < 0) {
                throw new IllegalArgumentException("must not be negative, got " + value);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("must be a whole number, got '" + value + "'");
        }
    }

    static double amount(String value) {
        try {
            double n = Double.parseDouble(value);
            if (n < 0 || Double.isNaN(n) || Double.isInfinite(n)) {
                throw new IllegalArgumentException("must be a non-negative amount, got " + value);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("must be a number, got '" + value + "'");
        }
    }
}
