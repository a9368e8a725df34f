package io.healbench.agent.service.llm;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Actions as the provider's native tool calls. Every call of a reply gets its own result message (providers require
 * one per call id), including calls that could not be used, whose result is the error.
 */
final class NativeToolCalls implements ActionFormat {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public List<ToolSpecification> specifications(List<String> tools) {
        List<ToolSpecification> out = new ArrayList<>();
        for (ActionCatalog.Tool tool : ActionCatalog.tools(tools)) {
            JsonObjectSchema.Builder schema = JsonObjectSchema.builder();
            List<String> required = new ArrayList<>();
            for (ActionCatalog.Parameter parameter : tool.parameters()) {
                switch (parameter.type()) {
                    case STRING -> {
                        if (parameter.choices().isEmpty()) {
                            schema.addStringProperty(parameter.name(), parameter.description());
                        } else {
                            schema.addEnumProperty(parameter.name(), parameter.choices(), parameter.description());
                        }
                    }
                    case INTEGER -> schema.addIntegerProperty(parameter.name(), parameter.description());
                    case NUMBER -> schema.addNumberProperty(parameter.name(), parameter.description());
                }
                if (parameter.required()) {
                    required.add(parameter.name());
                }
            }
            out.add(ToolSpecification.builder().name(tool.name()).description(tool.description())
                    .parameters(schema.required(required).build()).build());
        }
        return out;
    }

    @Override
    public String instructions(List<String> tools) {
        return Prompts.render("actions-native", Map.of("tools", String.join(", ", tools)));
    }

    @Override
    public List<Parsed> parse(AiMessage reply, List<String> tools, int step) {
        if (!reply.hasToolExecutionRequests()) {
            return List.of(new Parsed(null, "", "", "your reply called no tool: call exactly one of "
                    + String.join(", ", tools)));
        }
        List<Parsed> out = new ArrayList<>();
        for (ToolExecutionRequest call : reply.toolExecutionRequests()) {
            Map<String, Object> arguments;
            try {
                String text = call.arguments() == null || call.arguments().isBlank() ? "{}" : call.arguments();
                arguments = JSON.readValue(text, new TypeReference<Map<String, Object>>() { });
            } catch (IOException e) {
                out.add(new Parsed(null, call.id(), call.name(), call.name() + ": the arguments are not a JSON object"));
                continue;
            }
            if (arguments == null) {
                arguments = Map.of();
            }
            ActionCatalog.Checked checked = ActionCatalog.check(new Action(call.name(), call.id(), arguments), tools);
            out.add(new Parsed(checked.action(), call.id(), call.name(), checked.error()));
        }
        return out;
    }

    @Override
    public ChatMessage observation(Parsed action, String content) {
        return action.callId().isEmpty()
                ? UserMessage.from(content)
                : ToolExecutionResultMessage.from(action.callId(), action.toolName(), content);
    }
}
