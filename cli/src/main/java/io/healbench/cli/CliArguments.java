package io.healbench.cli;

import io.healbench.common.dataset.Tier;
import io.healbench.common.guard.GuardMode;
import io.healbench.proto.agent.v1.CassetteMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The parsed command line. Bad input is rejected with a message that says what is wrong.
 *
 * <pre>
 * healbench run [--instances a,b] [--subject S] [--tier real-bug|injected] [--limit N] [--seed S]
 *               [--agent rules|replay|healer|toolloop|mini] [--heals DIR] [--backbone B] [--llm-cassette DIR [--record]]
 *               [--guard-mode enforce|observe|off] [--repeats N] [--parallel N] [--json] [--server host:port --token T [--pool P]]
 * </pre>
 *
 * @param subject a subject string ({@code debian-source:toolz@0.12.0}) or a code base ({@code toolz}); null for all
 * @param tier    null for both tiers
 * @param limit   at most this many instances, a sample when more match; 0 for no limit
 * @param seed    picks the sample
 * @param heals   the replay agent's heal sets, an absolute directory (standalone mode only); null when not given
 * @param parallel attempts at once in standalone mode (default: the machine's cores)
 * @param llm     the LLM agents' backbone, limits and cassette ({@link LlmOptions#NONE} for offline agents)
 * @param pool    the agent pool whose workers take the run's attempts ({@code --server} runs); null for the default one
 */
public record CliArguments(
        String command,
        List<String> instanceIds,
        String subject,
        Tier tier,
        int limit,
        long seed,
        String agent,
        String heals,
        GuardMode guardMode,
        int repeats,
        int parallel,
        boolean json,
        String server,
        String token,
        LlmOptions llm,
        String pool) {

    /** Attempts at once in standalone mode; each holds a sandboxed interpreter, so more would only thrash. */
    static final int MAX_PARALLEL = 64;

    /** The agents that talk to a model, and so need a backbone. */
    static final List<String> LLM_AGENTS = List.of("healer", "toolloop", "mini");
    /** A run for external agents, any ({@code external}) or one by name ({@code external:NAME}). */
    private static final java.util.regex.Pattern EXTERNAL_AGENT = java.util.regex.Pattern.compile("external(:[A-Za-z0-9._-]{1,64})?");

    public static final String USAGE = """
            usage: healbench run [--instances ID,ID...] [--subject SUBJECT] [--tier real-bug|injected] [--limit N] [--seed S]
                                 [--agent rules|replay|healer|toolloop|mini|external[:NAME]] [--heals DIR]
                                 [--backbone NAME|PROVIDER:MODEL@URL [--price-in USD --price-out USD]] [--backbones FILE]
                                 [--limits KEY=VALUE,...] [--run-cost-limit USD] [--llm-cassette DIR [--record|--record-missing]]
                                 [--guard-mode enforce|observe|off] [--repeats N]
                                 [--parallel N] [--json] [--server HOST:PORT [--token TOKEN] [--pool POOL]]
                   healbench serve [--port P]
                   healbench agents [--backbones FILE]
                   healbench runs list|show|cancel|delete|regrade|compare ... (healbench runs, for its usage)
                   healbench llm-stub --script FILE [--port P] [--host H] [--latency-ms N]
              Selects a slice of the dataset: --instances, then --subject (a subject such as
              debian-source:toolz@0.12.0, or a code base such as toolz or cpython-stdlib) and --tier,
              then at most --limit instances (a sample fixed by --seed, default 0, when more match).
              --agent replay replays recorded heals from --heals DIR (DIR/<instance-id>.json, e.g.
              dataset/heals/unsafe-default); standalone mode only, --server workers have their own.
              --agent healer|toolloop|mini needs --backbone: a name from the backbones file (--backbones,
              $HEALBENCH_BACKBONES, else config/backbones.yaml) or openai:|anthropic:|gemini:MODEL@BASE-URL with
              its key in $HEALBENCH_LLM_API_KEY (unpriced unless --price-in/--price-out, USD per million tokens).
              --agent external[:NAME] makes a run whose attempts wait for external agents (docs/agents.md,
              "The external API"); standalone, it prints the gateway's endpoints and token. `healbench serve`
              starts the standalone platform alone and prints {"grpc", "mcp", "token"}.
              --limits keys: %s (0: no limit);
              --run-cost-limit caps the whole run's spend. --llm-cassette DIR replays the model traffic
              recorded in DIR with no network; --record records it afresh, --record-missing records only
              what DIR does not hold yet.
              Without --server, runs in standalone mode: all services in this process, --parallel attempts
              at once (default: the number of cores); with --server each worker sets its own."""
            .formatted(LlmOptions.limitKeys());

    /** Thrown for a command line that cannot be run; its message is shown with the usage. */
    public static class UsageException extends RuntimeException {
        public UsageException(String message) {
            super(message);
        }
    }

    /** Whether {@code agent} names a run for external agents. */
    public boolean externalAgent() {
        return EXTERNAL_AGENT.matcher(agent).matches();
    }

    public static CliArguments parse(String... args) {
        if (args.length == 0) {
            throw new UsageException("missing command");
        }
        String command = args[0];
        if (!command.equals("run")) {
            throw new UsageException("unknown command '" + command + "'");
        }
        List<String> instances = new ArrayList<>();
        String subject = null;
        Tier tier = null;
        int limit = 0;
        long seed = 0;
        String agent = "rules";
        String heals = null;
        GuardMode guardMode = GuardMode.DEFAULT;
        int repeats = 1;
        int parallel = Math.min(Runtime.getRuntime().availableProcessors(), MAX_PARALLEL);
        boolean parallelGiven = false;
        boolean json = false;
        String server = null;
        String token = System.getenv("HEALBENCH_TOKEN");
        String pool = null;
        String backbone = null;
        String backbones = null;
        double priceIn = 0;
        double priceOut = 0;
        Map<String, String> limits = Map.of();
        double runCostLimit = 0;
        String cassette = null;
        CassetteMode cassetteMode = CassetteMode.CASSETTE_REPLAY;
        boolean recordGiven = false;
        for (int i = 1; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--json" -> json = true;
                case "--instances" -> {
                    for (String id : value(args, ++i, arg).split(",")) {
                        if (!id.isBlank()) {
                            instances.add(id.trim());
                        }
                    }
                }
                case "--subject" -> subject = value(args, ++i, arg);
                case "--tier" -> {
                    String text = value(args, ++i, arg);
                    try {
                        tier = Tier.parse(text);
                    } catch (IllegalArgumentException e) {
                        throw new UsageException("--" + e.getMessage());
                    }
                }
                case "--limit" -> {
                    limit = count(value(args, ++i, arg), arg);
                    if (limit < 1) {
                        throw new UsageException("--limit must be at least 1, got " + limit);
                    }
                }
                case "--seed" -> {
                    String text = value(args, ++i, arg);
                    try {
                        seed = Long.parseLong(text);
                    } catch (NumberFormatException e) {
                        throw new UsageException("--seed must be a whole number, got '" + text + "'");
                    }
                }
                case "--agent" -> agent = value(args, ++i, arg);
                case "--heals" -> heals = directory(value(args, ++i, arg), arg);
                case "--guard-mode" -> {
                    try {
                        guardMode = GuardMode.parse(value(args, ++i, arg));
                    } catch (IllegalArgumentException e) {
                        throw new UsageException("--guard-mode: " + e.getMessage());
                    }
                }
                case "--repeats" -> {
                    repeats = count(value(args, ++i, arg), arg);
                    if (repeats < 1 || repeats > 100) {
                        throw new UsageException("--repeats must be between 1 and 100, got " + repeats);
                    }
                }
                case "--parallel" -> {
                    parallel = count(value(args, ++i, arg), arg);
                    parallelGiven = true;
                    if (parallel < 1 || parallel > MAX_PARALLEL) {
                        throw new UsageException("--parallel must be between 1 and " + MAX_PARALLEL + ", got " + parallel);
                    }
                }
                case "--server" -> server = value(args, ++i, arg);
                case "--pool" -> pool = value(args, ++i, arg);
                case "--token" -> token = value(args, ++i, arg);
                case "--backbone" -> backbone = value(args, ++i, arg);
                case "--backbones" -> backbones = file(value(args, ++i, arg), arg);
                case "--price-in" -> priceIn = amount(value(args, ++i, arg), arg);
                case "--price-out" -> priceOut = amount(value(args, ++i, arg), arg);
                case "--limits" -> limits = LlmOptions.parseLimits(value(args, ++i, arg));
                case "--run-cost-limit" -> runCostLimit = amount(value(args, ++i, arg), arg);
                case "--llm-cassette" -> cassette = Path.of(value(args, ++i, arg)).toAbsolutePath().normalize().toString();
                case "--record" -> {
                    cassetteMode = CassetteMode.CASSETTE_RECORD;
                    recordGiven = true;
                }
                case "--record-missing" -> {
                    cassetteMode = CassetteMode.CASSETTE_RECORD_MISSING;
                    recordGiven = true;
                }
                default -> throw new UsageException("unknown option '" + arg + "'");
            }
        }
        if (heals != null && server != null) {
            throw new UsageException("--heals works in standalone mode only: with --server the workers read their heal sets"
                    + " from their own healbench.agent.replay-dir");
        }
        if (parallelGiven && server != null) {
            throw new UsageException("--parallel works in standalone mode only: with --server each worker runs"
                    + " healbench.agent.max-concurrent-attempts attempts at once");
        }
        boolean llmAgent = LLM_AGENTS.contains(agent);
        boolean external = EXTERNAL_AGENT.matcher(agent).matches();
        if (agent.startsWith("external") && !external) {
            throw new UsageException("--agent external:NAME takes a name of up to 64 of A-Z a-z 0-9 . _ -, got '" + agent + "'");
        }
        if (llmAgent && backbone == null) {
            throw new UsageException("--agent " + agent + " needs --backbone (see `healbench agents` for the configured ones)");
        }
        if (external && (backbone != null || cassette != null || runCostLimit > 0)) {
            throw new UsageException("an external agent brings its own model: --backbone, --run-cost-limit and --llm-cassette"
                    + " are not for it (--limits is: calls, probes, heals_per_heal_point, wall_s)");
        }
        if (!llmAgent && !external && (backbone != null || cassette != null || !limits.isEmpty() || runCostLimit > 0)) {
            throw new UsageException("--backbone, --limits, --run-cost-limit and --llm-cassette are for the LLM agents ("
                    + String.join(", ", LLM_AGENTS) + "), not --agent " + agent);
        }
        if (pool != null && server == null) {
            throw new UsageException("--pool names the agent pool of a --server run; a standalone run's workers are in-process");
        }
        if (recordGiven && cassette == null) {
            throw new UsageException("--record and --record-missing need --llm-cassette DIR");
        }
        if (cassette != null && !recordGiven && !Files.isDirectory(Path.of(cassette))) {
            throw new UsageException("--llm-cassette " + cassette + " is not a directory to replay (add --record to make one)");
        }
        LlmOptions llm = llmAgent ? new LlmOptions(backbone, backbones, priceIn, priceOut, limits, runCostLimit, cassette,
                cassette == null ? CassetteMode.CASSETTE_OFF : cassetteMode)
                : external ? new LlmOptions(null, null, 0, 0, limits, 0, null, CassetteMode.CASSETTE_OFF) : LlmOptions.NONE;
        return new CliArguments(command, Collections.unmodifiableList(instances), subject, tier, limit, seed, agent, heals, guardMode,
                repeats, parallel, json, server, token, llm, pool);
    }

    public boolean standalone() {
        return server == null;
    }

    /** Whether the run is narrowed beyond {@code --instances}: by subject, tier or a limit. */
    public boolean filtered() {
        return subject != null || tier != null || limit > 0;
    }

    /** These arguments with the slice resolved to {@code ids}: no subject, tier or limit left to apply. */
    public CliArguments withInstances(List<String> ids) {
        return new CliArguments(command, List.copyOf(ids), null, null, 0, 0, agent, heals, guardMode, repeats, parallel, json, server,
                token, llm, pool);
    }

    /** The command line that parses back to these arguments. */
    public String[] toArgs() {
        List<String> args = new ArrayList<>(List.of(command));
        if (!instanceIds.isEmpty()) {
            args.addAll(List.of("--instances", String.join(",", instanceIds)));
        }
        if (subject != null) {
            args.addAll(List.of("--subject", subject));
        }
        if (tier != null) {
            args.addAll(List.of("--tier", tier.label()));
        }
        if (limit > 0) {
            args.addAll(List.of("--limit", Integer.toString(limit)));
        }
        args.addAll(List.of("--seed", Long.toString(seed)));
        args.addAll(List.of("--agent", agent));
        if (heals != null) {
            args.addAll(List.of("--heals", heals));
        }
        args.addAll(llm.toArgs());
        args.addAll(List.of("--guard-mode", guardMode.wireName(), "--repeats", Integer.toString(repeats)));
        if (server == null) {
            args.addAll(List.of("--parallel", Integer.toString(parallel)));
        }
        if (json) {
            args.add("--json");
        }
        if (server != null) {
            args.addAll(List.of("--server", server));
        }
        if (token != null) {
            args.addAll(List.of("--token", token));
        }
        if (pool != null) {
            args.addAll(List.of("--pool", pool));
        }
        return args.toArray(String[]::new);
    }

    private static int count(String text, String option) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new UsageException(option + " must be a whole number, got '" + text + "'");
        }
    }

    /** An existing directory, made absolute against the working directory it was typed in (the report records it). */
    private static String directory(String text, String option) {
        Path dir = Path.of(text).toAbsolutePath().normalize();
        if (!Files.isDirectory(dir)) {
            throw new UsageException(option + " must name a directory, got '" + text + "'");
        }
        return dir.toString();
    }

    private static double amount(String text, String option) {
        try {
            return LlmOptions.amount(text);
        } catch (IllegalArgumentException e) {
            throw new UsageException(option + " " + e.getMessage());
        }
    }

    /** An existing file, made absolute against the working directory it was typed in. */
    private static String file(String text, String option) {
        Path path = Path.of(text).toAbsolutePath().normalize();
        if (!Files.isRegularFile(path)) {
            throw new UsageException(option + " must name a file, got '" + text + "'");
        }
        return path.toString();
    }

    private static String value(String[] args, int index, String option) {
        if (index >= args.length || args[index].startsWith("--")) {
            throw new UsageException(option + " needs a value");
        }
        return args[index];
    }
}
