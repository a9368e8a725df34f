package io.healbench.cli;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The parsed command line. Bad input is rejected with a message that says what is wrong.
 *
 * <pre>
 * healbench run [--instances a,b] [--agent rules] [--guard-mode enforce|observe|off]
 *               [--repeats N] [--json] [--server host:port --token T]
 * </pre>
 */
public record CliArguments(
        String command,
        List<String> instanceIds,
        String agent,
        String guardMode,
        int repeats,
        boolean json,
        String server,
        String token) {

    public static final String USAGE = """
            usage: healbench run [--instances ID,ID...] [--agent rules] [--guard-mode enforce|observe|off]
                                 [--repeats N] [--json] [--server HOST:PORT [--token TOKEN]]
              Without --server, runs in standalone mode: all services in this process.""";

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
        String agent = "rules";
        String guardMode = "enforce";
        int repeats = 1;
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
                case "--agent" -> agent = value(args, ++i, arg);
                case "--guard-mode" -> {
                    guardMode = value(args, ++i, arg);
                    if (!List.of("enforce", "observe", "off").contains(guardMode)) {
                        throw new UsageException("--guard-mode must be enforce, observe or off, got '" + guardMode + "'");
                    }
                }
                case "--repeats" -> {
                    String text = value(args, ++i, arg);
                    try {
                        repeats = Integer.parseInt(text);
                    } catch (NumberFormatException e) {
                        throw new UsageException("--repeats must be a whole number, got '" + text + "'");
                    }
                    if (repeats < 1 || repeats > 100) {
                        throw new UsageException("--repeats must be between 1 and 100, got " + repeats);
                    }
                }
                case "--server" -> server = value(args, ++i, arg);
                case "--token" -> token = value(args, ++i, arg);
                default -> throw new UsageException("unknown option '" + arg + "'");
            }
        }
        return new CliArguments(command, Collections.unmodifiableList(instances), agent, guardMode, repeats, json, server, token);
    }

    public boolean standalone() {
        return server == null;
    }

    private static String value(String[] args, int index, String option) {
        if (index >= args.length || args[index].startsWith("--")) {
            throw new UsageException(option + " needs a value");
        }
        return args[index];
    }
}
