package io.healbench.agent.mcp;

import io.healbench.agent.service.llm.ActionCatalog;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The MCP tools of the external API: {@code claim}, the action surface's tools as {@link ActionCatalog} defines them
 * (names, parameters, descriptions; each with the {@code attempt} it acts on), and {@code report_usage}. The schemas
 * describe the arguments; checking them stays the domain's ({@link ActionCatalog#check}), as for every agent.
 */
public final class McpToolSchemas {

    public static final String CLAIM = "claim";
    public static final String REPORT_USAGE = "report_usage";
    public static final String ATTEMPT = "attempt";

    static final String ATTEMPT_DESCRIPTION = "the claimed attempt, as claim named it: runs/{run}/attempts/{attempt}";

    private McpToolSchemas() {
    }

    /** The action surface's tool names, in the catalog's order. */
    public static List<String> actionTools() {
        return ActionCatalog.allNames();
    }

    /** Every tool, in order: claim, the action surface's tools, report_usage. */
    public static List<McpSchema.Tool> tools() {
        List<McpSchema.Tool> tools = new ArrayList<>();
        tools.add(claim());
        for (ActionCatalog.Tool tool : ActionCatalog.tools(actionTools())) {
            tools.add(action(tool));
        }
        tools.add(reportUsage());
        return List.copyOf(tools);
    }

    static McpSchema.Tool claim() {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("run", property("string", "claim the next queued attempt of this run: runs/{run}", List.of()));
        properties.put(ATTEMPT, property("string", "claim this attempt: runs/{run}/attempts/{attempt} (also takes up "
                + "again an attempt you already hold, as it stands)", List.of()));
        properties.put("agent", property("string", "your agent's name, if the run is for a named external agent "
                + "(external:NAME); up to 64 of A-Z a-z 0-9 . _ -", List.of()));
        return McpSchema.Tool.builder().name(CLAIM)
                .description("Claim an attempt made for an external agent: give exactly one of run or attempt. Answers "
                        + "once the attempt's program first stands still (its first crash, or its end), with the "
                        + "attempt's name that every other tool takes. Each tool call on the attempt keeps its claim "
                        + "alive; it lapses after lease_seconds without one.")
                .inputSchema(schema(properties, List.of()))
                .build();
    }

    static McpSchema.Tool action(ActionCatalog.Tool tool) {
        Map<String, Object> properties = new LinkedHashMap<>();
        List<String> required = new ArrayList<>();
        properties.put(ATTEMPT, property("string", ATTEMPT_DESCRIPTION, List.of()));
        required.add(ATTEMPT);
        for (ActionCatalog.Parameter parameter : tool.parameters()) {
            properties.put(parameter.name(), property(parameter.type().name().toLowerCase(Locale.ROOT),
                    parameter.description(), parameter.choices()));
            if (parameter.required()) {
                required.add(parameter.name());
            }
        }
        return McpSchema.Tool.builder().name(tool.name()).description(tool.description())
                .inputSchema(schema(properties, required)).build();
    }

    static McpSchema.Tool reportUsage() {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put(ATTEMPT, property("string", ATTEMPT_DESCRIPTION, List.of()));
        properties.put("llm_calls", property("integer", "model calls since your last report", List.of()));
        properties.put("input_tokens", property("integer", "input tokens since your last report", List.of()));
        properties.put("output_tokens", property("integer", "output tokens since your last report", List.of()));
        properties.put("cost_usd", property("number", "cost in US dollars since your last report", List.of()));
        properties.put("model", property("string", "the model you used", List.of()));
        return McpSchema.Tool.builder().name(REPORT_USAGE)
                .description("Report the model usage of your agent on this attempt since your last report. It is kept "
                        + "with the attempt's result, flagged as self-reported (never verified).")
                .inputSchema(schema(properties, List.of(ATTEMPT)))
                .build();
    }

    private static Map<String, Object> schema(Map<String, Object> properties, List<String> required) {
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", properties);
        if (!required.isEmpty()) {
            schema.put("required", List.copyOf(required));
        }
        schema.put("additionalProperties", false);
        return schema;
    }

    private static Map<String, Object> property(String type, String description, List<String> choices) {
        Map<String, Object> property = new LinkedHashMap<>();
        property.put("type", type);
        property.put("description", description);
        if (!choices.isEmpty()) {
            property.put("enum", List.copyOf(choices));
        }
        return property;
    }
}
