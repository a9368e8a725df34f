package io.healbench.cli;

import io.healbench.common.backbone.Backbone;
import io.healbench.common.backbone.BackboneCatalog;
import io.healbench.common.backbone.BackboneException;
import io.healbench.proto.agent.v1.CassetteMode;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code healbench agents}: the agents this build runs and the configured backbones.
 */
public final class AgentsCommand {

    private static final Map<String, String> AGENTS = new LinkedHashMap<>();

    static {
        AGENTS.put("rules", "offline: writes HealCore heals from the live state with no model");
        AGENTS.put("replay", "offline: replays recorded heals (--heals DIR)");
        AGENTS.put("healer", "LLM, single shot: one prompt with the whole crash context, answers heal or reraise");
        AGENTS.put("toolloop", "LLM, native tool calls over the whole action surface (probe, read, search, heal)");
        AGENTS.put("mini", "LLM, the same loop with one fenced text action per reply, for models without tool calling");
    }

    private AgentsCommand() {
    }

    public static int run(String[] args, Path home, PrintStream out, PrintStream err) {
        LlmOptions options = LlmOptions.NONE;
        if (args.length == 2 && args[0].equals("--backbones")) {
            options = new LlmOptions(null, Path.of(args[1]).toAbsolutePath().toString(), 0, 0, Map.of(), 0, null,
                    CassetteMode.CASSETTE_OFF);
        } else if (args.length != 0) {
            err.println("usage: healbench agents [--backbones FILE]");
            return ExitStatus.USAGE;
        }
        out.println("AGENTS");
        AGENTS.forEach((name, what) -> out.printf("  %-9s %s%n", name, what));
        Path file = options.backbonesPath(home);
        BackboneCatalog catalog;
        try {
            catalog = BackboneCatalog.load(file);
        } catch (BackboneException e) {
            err.println("healbench: " + e.getMessage());
            return ExitStatus.NOT_READY;
        }
        out.println();
        out.println("BACKBONES (" + file + ")");
        String format = "  %-20s %-9s %-34s %-48s %-26s %s%n";
        out.printf(format, "NAME", "PROVIDER", "MODEL", "BASE URL", "KEY", "PRICE IN/OUT PER MTOK");
        for (Backbone backbone : catalog.all().values()) {
            String key = "$" + backbone.apiKeyEnv() + (present(backbone.apiKeyEnv()) ? " (set)"
                    : backbone.apiKeyRequired() ? " (unset)" : " (optional)");
            out.printf(format, backbone.name(), backbone.provider().wireName(), backbone.model(), backbone.baseUrl(), key,
                    backbone.prices().map(p -> String.format("$%.2f / $%.2f", p.inputPerMillion(), p.outputPerMillion()))
                            .orElse("unpriced"));
        }
        out.println("  or ad hoc: --backbone openai|anthropic|gemini:MODEL@BASE-URL, key in $"
                + BackboneCatalog.AD_HOC_KEY_ENV);
        return ExitStatus.COMPLETED;
    }

    /** Whether an environment variable holds something: a backbone's key is set. */
    public static boolean present(String variable) {
        String value = System.getenv(variable);
        return value != null && !value.isBlank();
    }
}
