package io.healbench.agent.llmstub;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code llm-stub --script FILE [--port P] [--host H] [--latency-ms N]}: serves a script until the process is
 * killed. On start it prints one JSON line, {@code {"openai_base_url":..,"anthropic_base_url":..,
 * "gemini_base_url":..,"port":..}}, so that a caller that asked for port 0 learns the port. Exit statuses:
 * 2 bad command line or bad script, 1 the address cannot be bound, 0 when the serving thread is interrupted.
 */
public final class LlmStubCommand {

    private static final String USAGE =
            "usage: llm-stub --script FILE [--port P (default 8765)] [--host H (default 127.0.0.1)] [--latency-ms N]";

    private LlmStubCommand() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    public static int run(String[] args, PrintStream out, PrintStream err) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (name.equals("--help") || name.equals("-h")) {
                out.println(USAGE);
                return 0;
            }
            if (!name.equals("--script") && !name.equals("--port") && !name.equals("--host") && !name.equals("--latency-ms")) {
                return badUsage(err, "unknown argument '" + name + "'");
            }
            if (i + 1 == args.length) {
                return badUsage(err, name + " needs a value");
            }
            options.put(name, args[++i]);
        }
        if (!options.containsKey("--script")) {
            return badUsage(err, "--script FILE is required");
        }
        String host = options.getOrDefault("--host", "127.0.0.1");
        Integer port = number(options.getOrDefault("--port", "8765"), 65535);
        if (port == null) {
            return badUsage(err, "--port must be 0 to 65535, got '" + options.get("--port") + "'");
        }
        Duration latency = null;
        if (options.containsKey("--latency-ms")) {
            Integer millis = number(options.get("--latency-ms"), Integer.MAX_VALUE);
            if (millis == null) {
                return badUsage(err, "--latency-ms must be a non-negative integer, got '" + options.get("--latency-ms") + "'");
            }
            latency = Duration.ofMillis(millis);
        }
        LlmStubScript script;
        try {
            script = LlmStubScript.load(Path.of(options.get("--script")));
        } catch (LlmStubScriptException e) {
            err.println("llm-stub: " + e.getMessage());
            return 2;
        }
        try (LlmStubServer server = LlmStubServer.start(script, host, port, latency)) {
            out.println(startLine(server));
            out.flush();
            Thread.currentThread().join();
        } catch (UncheckedIOException e) {
            err.println(e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    private static String startLine(LlmStubServer server) {
        ObjectNode line = StubJson.MAPPER.createObjectNode();
        line.put("openai_base_url", server.openAiBaseUrl());
        line.put("anthropic_base_url", server.anthropicBaseUrl());
        line.put("gemini_base_url", server.geminiBaseUrl());
        line.put("port", server.port());
        return line.toString();
    }

    /** A non-negative decimal up to {@code max}, else null. */
    private static Integer number(String text, int max) {
        try {
            int value = Integer.parseInt(text);
            return value >= 0 && value <= max ? value : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static int badUsage(PrintStream err, String problem) {
        err.println("llm-stub: " + problem);
        err.println(USAGE);
        return 2;
    }
}
