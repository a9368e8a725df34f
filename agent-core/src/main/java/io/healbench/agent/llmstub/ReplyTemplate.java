package io.healbench.agent.llmstub;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * A scripted {@code reply:} (or the {@code default:}) as loaded: text and tool-call arguments still holding
 * templates, an optional finish-reason and usage override, or an error status that replaces the reply.
 *
 * @param text   null when the reply has no text
 * @param finish null to derive it: tool calls when there are any, else stop
 * @param status null for a normal reply
 */
record ReplyTemplate(TemplateText text, List<ToolCallTemplate> toolCalls, StubFinish finish, UsageOverride usage,
                     Integer status) {

    /** One scripted tool call; only the arguments' strings are templates, the name is literal. */
    record ToolCallTemplate(String name, JsonTemplate arguments) {
    }

    ReplyTemplate {
        toolCalls = List.copyOf(toolCalls);
    }

    StubReply render(StubConversation conversation, List<String> groups) {
        TemplateValues values = new TemplateValues(
                conversation.lastToolResult().map(String::strip).orElse(""), conversation.turn(), groups);
        String renderedText = text == null ? null : text.render(values);
        List<StubToolCall> calls = new ArrayList<>();
        for (ToolCallTemplate call : toolCalls) {
            calls.add(new StubToolCall(call.name(), (ObjectNode) call.arguments().render(values)));
        }
        StubFinish resolved = finish != null ? finish : calls.isEmpty() ? StubFinish.STOP : StubFinish.TOOL_CALLS;
        StubUsage counted = usage.applyTo(StubUsage.estimate(conversation.bodyBytes(), renderedText, calls));
        return new StubReply(renderedText, calls, resolved, counted,
                status == null ? OptionalInt.empty() : OptionalInt.of(status));
    }
}
