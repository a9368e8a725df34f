package io.healbench.agent.service.llm;

import io.healbench.common.heal.Resume;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The one action surface every agent uses (docs/agents.md, "Tools"): the same names, arguments and checks whether
 * the agent calls tools natively, writes fenced text actions, or (next) comes in over the API. Arguments are checked
 * here, once; a bad one is an error the agent sees, never a crash of the loop.
 */
public final class ActionCatalog {

    public static final String GET_CRASH = "get_crash";
    public static final String PROBE = "probe";
    public static final String HEAL = "heal";
    public static final String RERAISE = "reraise";
    public static final String READ_FILE = "read_file";
    public static final String LIST_FILES = "list_files";
    public static final String SEARCH_CODE = "search_code";

    /** The read-only views of the sources: what the usage counts as explores. */
    public static boolean explores(String tool) {
        return tool.equals(READ_FILE) || tool.equals(LIST_FILES) || tool.equals(SEARCH_CODE);
    }

    public enum Type { STRING, INTEGER, NUMBER }

    public record Parameter(String name, Type type, boolean required, String description, List<String> choices) {
    }

    public record Tool(String name, String description, List<Parameter> parameters) {

        /** The parameter whose value a fenced text action carries in its body (code, a reason, a pattern). */
        public Optional<Parameter> bodyParameter() {
            return parameters.stream().filter(p -> p.type() == Type.STRING && p.required()).findFirst();
        }
    }

    private static final Map<String, Tool> TOOLS = new LinkedHashMap<>();

    static {
        add(new Tool(GET_CRASH, "The crash context again: exception, traceback, crash statement, capped locals, "
                + "enclosing function and callers' source.", List.of()));
        add(new Tool(PROBE, "Run Python code in a fork of the paused process and see what it printed and the value "
                + "of its last expression. The live state is never changed by a probe.", List.of(
                new Parameter("code", Type.STRING, true, "Python code run in the crashing frame's namespace", List.of()),
                new Parameter("timeout_s", Type.NUMBER, false, "seconds, at most 20 (the default)", List.of()))));
        add(new Tool(HEAL, "Submit healing code (HealCore, a subset of Python) to run in the paused frame, then "
                + "resume: skip (continue after the failing statement), retry (run it again) or return (the function "
                + "returns the value assigned to _return_). Ends the heal point when applied.", List.of(
                new Parameter("code", Type.STRING, true, "HealCore statements", List.of()),
                new Parameter("resume", Type.STRING, true, "how execution resumes", Arrays.stream(Resume.values()).map(Resume::wireName).toList()))));
        add(new Tool(RERAISE, "Give up on this crash: the original exception propagates. Ends the heal point.",
                List.of(new Parameter("reason", Type.STRING, true, "why no heal is possible", List.of()))));
        add(new Tool(READ_FILE, "Read lines of a source file of the program (read-only).", List.of(
                new Parameter("path", Type.STRING, true, "path relative to the source root", List.of()),
                new Parameter("start", Type.INTEGER, false, "first line, 1-based (default 1)", List.of()),
                new Parameter("end", Type.INTEGER, false, "last line, inclusive (default: the end)", List.of()))));
        add(new Tool(LIST_FILES, "List the program's source files (read-only).", List.of(
                new Parameter("path", Type.STRING, false, "directory relative to the source root (default: the root)", List.of()),
                new Parameter("glob", Type.STRING, false, "glob on the path, e.g. **/*.py", List.of()))));
        add(new Tool(SEARCH_CODE, "Search the program's sources for a regular expression (read-only).", List.of(
                new Parameter("pattern", Type.STRING, true, "a Java regular expression, matched per line", List.of()),
                new Parameter("glob", Type.STRING, false, "glob on the path, e.g. **/*.py", List.of()))));
    }

    private ActionCatalog() {
    }

    private static void add(Tool tool) {
        TOOLS.put(tool.name(), tool);
    }

    /** The tools of the surface, in their documented order, limited to {@code names}. */
    public static List<Tool> tools(List<String> names) {
        List<Tool> out = new ArrayList<>();
        for (String name : names) {
            Tool tool = TOOLS.get(name);
            if (tool == null) {
                throw new IllegalArgumentException("no tool named " + name);
            }
            out.add(tool);
        }
        return out;
    }

    public static List<String> allNames() {
        return List.copyOf(TOOLS.keySet());
    }

    /**
     * The action with its arguments checked and typed (integers as Integer, numbers as Double), or the error to show
     * the agent. {@code offered} is the tool set of this agent.
     */
    public static Checked check(Action action, List<String> offered) {
        Tool tool = TOOLS.get(action.tool());
        if (tool == null || !offered.contains(action.tool())) {
            return Checked.error("unknown tool '" + action.tool() + "'; the tools are: " + String.join(", ", offered));
        }
        Map<String, Object> typed = new LinkedHashMap<>();
        for (String given : action.arguments().keySet()) {
            if (tool.parameters().stream().noneMatch(p -> p.name().equals(given))) {
                return Checked.error(tool.name() + ": unknown argument '" + given + "'" + expected(tool));
            }
        }
        for (Parameter parameter : tool.parameters()) {
            Object value = action.arguments().get(parameter.name());
            if (value == null) {
                if (parameter.required()) {
                    return Checked.error(tool.name() + ": argument '" + parameter.name() + "' is required" + expected(tool));
                }
                continue;
            }
            Object converted = convert(value, parameter.type());
            if (converted == null) {
                return Checked.error(tool.name() + ": argument '" + parameter.name() + "' must be "
                        + parameter.type().name().toLowerCase(java.util.Locale.ROOT) + ", got " + value);
            }
            if (!parameter.choices().isEmpty() && !parameter.choices().contains(converted)) {
                return Checked.error(tool.name() + ": argument '" + parameter.name() + "' must be one of "
                        + String.join(", ", parameter.choices()) + ", got '" + converted + "'");
            }
            typed.put(parameter.name(), converted);
        }
        return new Checked(new Action(action.tool(), action.callId(), typed), "");
    }

    private static String expected(Tool tool) {
        return tool.parameters().isEmpty() ? " (it takes none)"
                : " (it takes: " + String.join(", ", tool.parameters().stream().map(Parameter::name).toList()) + ")";
    }

    private static Object convert(Object value, Type type) {
        return switch (type) {
            case STRING -> value instanceof String text ? text : null;
            case INTEGER -> value instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue()) ? n.intValue()
                    : value instanceof String text && text.matches("-?\\d{1,9}") ? Integer.valueOf(text) : null;
            case NUMBER -> value instanceof Number n ? n.doubleValue()
                    : value instanceof String text && text.matches("-?\\d+(\\.\\d+)?") ? Double.valueOf(text) : null;
        };
    }

    /** A checked action, or (when {@code error} is not empty) why it was refused. */
    public record Checked(Action action, String error) {
        static Checked error(String why) {
            return new Checked(null, why);
        }

        public boolean ok() {
            return error.isEmpty();
        }
    }
}
