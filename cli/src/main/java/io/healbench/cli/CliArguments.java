package io.healbench.cli;

import io.healbench.common.dataset.Tier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The parsed command line. Bad input is rejected with a message that says what is wrong.
 *
 * <pre>
 * healbench run [--instances a,b] [--subject S] [--tier real-bug|injected] [--limit N] [--seed S]
 *               [--agent rules|replay] [--heals DIR] [--guard-mode enforce|observe|off] [--repeats N] [--parallel N]
 *               [--json] [--server host:port --token T]
 * </pre>
 *
 * @param subject a subject string ({@code debian-source:toolz@0.12.0}) or a code base ({@code toolz}); null for all
 * @param tier    null for both tiers
 * @param limit   at most this many instances, a sample when more match; 0 for no limit
 * @param seed    picks the sample
 * @param heals   the replay agent's heal sets, an absolute directory (standalone mode only); null when not given
 * @param parallel attempts at once in standalone mode (default: the machine's cores)
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
        String guardMode,
        int repeats,
        int parallel,
        boolean json,
        String server,
        String token) {

    /** Attempts at once in standalone mode; each holds a sandboxed interpreter, so more would only thrash. */
    static final int MAX_PARALLEL = 64;

    public static final String USAGE = """
            usage: healbench run [--instances ID,ID...] [--subject SUBJECT] [--tier real-bug|injected] [--limit N] [--seed S]
                                 [--agent rules|replay] [--heals DIR] [--guard-mode enforce|observe|off] [--repeats N]
                                 [--parallel N] [--json] [--server HOST:PORT [--token TOKEN]]
              Selects a slice of the dataset: --instances, then --subject (a subject such as
              debian-source:toolz@0.12.0, or a code base such as toolz or cpython-stdlib) and --tier,
              then at most --limit instances (a sample fixed by --seed, default 0, when more match).
              --agent replay replays recorded heals from --heals DIR (DIR/<instance-id>.json, e.g.
              dataset/heals/unsafe-default); standalone mode only, --server workers have their own.
              Without --server, runs in standalone mode: all services in this process, --parallel attempts
              at once (default: the number of cores); with --server each worker sets its own.""";

    /** Thrown for a command line that cannot be run; its message is shown with the usage. */
    public static class UsageException extends RuntimeException {
        public UsageException(String message) {
            super(message);
        }
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
        String guardMode = "enforce";
        int repeats = 1;
        int parallel = Math.min(Runtime.getRuntime().availableProcessors(), MAX_PARALLEL);
        boolean parallelGiven = false;
        boolean json = false;
        String server = null;
        String token = System.getenv("HEALBENCH_TOKEN");
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
                    guardMode = value(args, ++i, arg);
                    if (!List.of("enforce", "observe", "off").contains(guardMode)) {
                        throw new UsageException("--guard-mode must be enforce, observe or off, got '" + guardMode + "'");
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
                case "--token" -> token = value(args, ++i, arg);
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
        return new CliArguments(command, Collections.unmodifiableList(instances), subject, tier, limit, seed, agent, heals, guardMode,
                repeats, parallel, json, server, token);
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
                token);
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
            args.addAll(List.of("--limit", Integer.toString(limit), "--seed", Long.toString(seed)));
        }
        args.addAll(List.of("--agent", agent));
        if (heals != null) {
            args.addAll(List.of("--heals", heals));
        }
        args.addAll(List.of("--guard-mode", guardMode, "--repeats", Integer.toString(repeats)));
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

    private static String value(String[] args, int index, String option) {
        if (index >= args.length || args[index].startsWith("--")) {
            throw new UsageException(option + " needs a value");
        }
        return args[index];
    }
}
