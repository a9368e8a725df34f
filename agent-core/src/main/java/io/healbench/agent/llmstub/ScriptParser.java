package io.healbench.agent.llmstub;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.Locale;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Reads a script file into an {@link LlmStubScript}, checking every field, so that a script author's mistake
 * is one message naming the file and the place ({@code rules[2].when.turn}) rather than a wrong reply later.
 * Unknown fields are refused, a misspelt one would otherwise be silently ignored.
 */
final class ScriptParser {

    /** Duplicate keys are refused too: the second would silently win. */
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    private static final Set<String> TOP_FIELDS = Set.of("latency_ms", "rules", "default");
    private static final Set<String> RULE_FIELDS = Set.of("when", "reply");
    private static final Set<String> WHEN_FIELDS = Set.of("contains", "matches", "turn", "last_tool_result_matches", "tools");
    private static final Set<String> REPLY_FIELDS = Set.of("text", "tool_calls", "finish", "usage", "status");
    private static final Set<String> TOOL_CALL_FIELDS = Set.of("name", "arguments");
    private static final Set<String> USAGE_FIELDS = Set.of("input_tokens", "output_tokens", "cached_input_tokens");

    private final Path file;

    private ScriptParser(Path file) {
        this.file = file;
    }

    static LlmStubScript parse(Path file) {
        return new ScriptParser(file).script(read(file));
    }

    private static JsonNode read(Path file) {
        try {
            return YAML.readTree(Files.readString(file));
        } catch (NoSuchFileException e) {
            throw new LlmStubScriptException("llm-stub script " + file + " does not exist", e);
        } catch (JsonProcessingException e) {
            String at = e.getLocation() == null ? ""
                    : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
            throw new LlmStubScriptException(file + ": not valid YAML" + at + ": " + problem(e), e);
        } catch (IOException e) {
            throw new LlmStubScriptException("cannot read llm-stub script " + file + ": " + e.getMessage(), e);
        }
    }

    /** SnakeYAML's own message repeats the location with a source excerpt over several lines; its problem alone is one line. */
    private static String problem(JsonProcessingException e) {
        if (e.getCause() instanceof MarkedYAMLException yaml && yaml.getProblem() != null) {
            return yaml.getContext() == null ? yaml.getProblem() : yaml.getContext() + ": " + yaml.getProblem();
        }
        return e.getOriginalMessage();
    }

    private LlmStubScript script(JsonNode root) {
        if (root == null || !root.isObject()) {
            throw fail("", "must be a YAML mapping with 'rules' and 'default'");
        }
        refuseUnknownFields(root, TOP_FIELDS, "");
        Duration latency = Duration.ofMillis(nonNegativeInt(root.get("latency_ms"), "latency_ms", 0));
        List<ScriptRule> rules = new ArrayList<>();
        JsonNode list = root.get("rules");
        if (list != null && !list.isNull()) {
            if (!list.isArray()) {
                throw fail("rules", "must be a list of {when, reply} mappings");
            }
            for (int i = 0; i < list.size(); i++) {
                rules.add(rule(list.get(i), "rules[" + i + "]"));
            }
        }
        JsonNode defaultNode = root.get("default");
        if (defaultNode == null || defaultNode.isNull()) {
            throw fail("default", "is required: the reply when no rule matches");
        }
        return new LlmStubScript(file, latency, rules, reply(defaultNode, "default", TemplateText.NO_REGEX));
    }

    private ScriptRule rule(JsonNode node, String where) {
        if (!node.isObject()) {
            throw fail(where, "must be a mapping with 'when' and 'reply'");
        }
        refuseUnknownFields(node, RULE_FIELDS, where + ".");
        JsonNode whenNode = node.get("when");
        RuleCondition when = whenNode == null || whenNode.isNull() ? RuleCondition.ALWAYS : condition(whenNode, where + ".when");
        JsonNode replyNode = node.get("reply");
        if (replyNode == null || replyNode.isNull()) {
            throw fail(where + ".reply", "is required");
        }
        Pattern groupSource = when.groupSource();
        int groupCount = groupSource == null ? TemplateText.NO_REGEX : groupSource.matcher("").groupCount();
        return new ScriptRule(when, reply(replyNode, where + ".reply", groupCount));
    }

    private RuleCondition condition(JsonNode node, String where) {
        if (!node.isObject()) {
            throw fail(where, "must be a mapping of conditions (" + sorted(WHEN_FIELDS) + ")");
        }
        refuseUnknownFields(node, WHEN_FIELDS, where + ".");
        Integer turn = null;
        if (node.has("turn")) {
            turn = nonNegativeInt(node.get("turn"), where + ".turn", 0);
            if (turn < 1) {
                throw fail(where + ".turn", "must be a positive integer (turn 1 is the first request)");
            }
        }
        JsonNode tools = node.get("tools");
        if (tools != null && !tools.isBoolean()) {
            throw fail(where + ".tools", "must be true or false");
        }
        return new RuleCondition(
                optionalString(node.get("contains"), where + ".contains"),
                regex(node.get("matches"), where + ".matches"),
                turn,
                regex(node.get("last_tool_result_matches"), where + ".last_tool_result_matches"),
                tools == null ? null : tools.booleanValue());
    }

    private ReplyTemplate reply(JsonNode node, String where, int groupCount) {
        if (!node.isObject()) {
            throw fail(where, "must be a mapping (" + sorted(REPLY_FIELDS) + ")");
        }
        refuseUnknownFields(node, REPLY_FIELDS, where + ".");
        String text = optionalString(node.get("text"), where + ".text");
        List<ReplyTemplate.ToolCallTemplate> calls = toolCalls(node.get("tool_calls"), where + ".tool_calls", groupCount);
        Integer status = null;
        if (node.has("status")) {
            status = nonNegativeInt(node.get("status"), where + ".status", 0);
            if (status < 400 || status > 599) {
                throw fail(where + ".status", "must be an HTTP error status, 400 to 599, got " + status);
            }
        }
        if (text == null && calls.isEmpty() && status == null) {
            throw fail(where, "needs 'text', 'tool_calls' or 'status'");
        }
        return new ReplyTemplate(
                text == null ? null : TemplateText.parse(text, location(where + ".text"), groupCount),
                calls,
                finish(node.get("finish"), where + ".finish"),
                usage(node.get("usage"), where + ".usage"),
                status);
    }

    private List<ReplyTemplate.ToolCallTemplate> toolCalls(JsonNode node, String where, int groupCount) {
        List<ReplyTemplate.ToolCallTemplate> calls = new ArrayList<>();
        if (node == null || node.isNull()) {
            return calls;
        }
        if (!node.isArray()) {
            throw fail(where, "must be a list of {name, arguments} mappings");
        }
        for (int i = 0; i < node.size(); i++) {
            JsonNode call = node.get(i);
            String at = where + "[" + i + "]";
            if (!call.isObject()) {
                throw fail(at, "must be a mapping with 'name' and 'arguments'");
            }
            refuseUnknownFields(call, TOOL_CALL_FIELDS, at + ".");
            String name = optionalString(call.get("name"), at + ".name");
            if (name == null || name.isBlank()) {
                throw fail(at + ".name", "is required: the tool's name");
            }
            JsonNode arguments = call.get("arguments");
            if (arguments == null || arguments.isNull()) {
                arguments = YAML.createObjectNode();
            } else if (!arguments.isObject()) {
                throw fail(at + ".arguments", "must be a mapping of argument names to values");
            }
            calls.add(new ReplyTemplate.ToolCallTemplate(name,
                    JsonTemplate.compile(arguments, location(at + ".arguments"), groupCount)));
        }
        return calls;
    }

    private StubFinish finish(JsonNode node, String where) {
        String finish = optionalString(node, where);
        if (finish == null) {
            return null;
        }
        return switch (finish) {
            case "stop" -> StubFinish.STOP;
            case "length" -> StubFinish.LENGTH;
            default -> throw fail(where, "must be stop or length, got '" + finish + "'");
        };
    }

    private UsageOverride usage(JsonNode node, String where) {
        if (node == null || node.isNull()) {
            return UsageOverride.NONE;
        }
        if (!node.isObject()) {
            throw fail(where, "must be a mapping (" + sorted(USAGE_FIELDS) + ")");
        }
        refuseUnknownFields(node, USAGE_FIELDS, where + ".");
        return new UsageOverride(count(node, "input_tokens", where), count(node, "output_tokens", where),
                count(node, "cached_input_tokens", where));
    }

    private Integer count(JsonNode usage, String field, String where) {
        return usage.has(field) ? nonNegativeInt(usage.get(field), where + "." + field, 0) : null;
    }

    private Pattern regex(JsonNode node, String where) {
        String regex = optionalString(node, where);
        if (regex == null) {
            return null;
        }
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw fail(where, "is not a valid regular expression: " + e.getDescription() + " near index " + e.getIndex());
        }
    }

    private String optionalString(JsonNode node, String where) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isTextual()) {
            throw fail(where, "must be a string (quote it), got " + node.getNodeType().name().toLowerCase(Locale.ROOT));
        }
        return node.asText();
    }

    private int nonNegativeInt(JsonNode node, String where, int absent) {
        if (node == null || node.isNull()) {
            return absent;
        }
        if (!node.isIntegralNumber() || !node.canConvertToInt() || node.intValue() < 0) {
            throw fail(where, "must be a non-negative integer, got " + node);
        }
        return node.intValue();
    }

    private void refuseUnknownFields(JsonNode node, Set<String> known, String prefix) {
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!known.contains(name)) {
                throw fail(prefix + name, "unknown field (expected one of " + sorted(known) + ")");
            }
        }
    }

    private static String sorted(Set<String> fields) {
        return fields.stream().sorted().collect(Collectors.joining(", "));
    }

    private String location(String where) {
        return where.isEmpty() ? file.toString() : file + ": " + where;
    }

    private LlmStubScriptException fail(String where, String problem) {
        return new LlmStubScriptException(location(where) + ": " + problem);
    }
}
