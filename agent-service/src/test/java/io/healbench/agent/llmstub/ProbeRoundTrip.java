package io.healbench.agent.llmstub;

import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.response.ChatResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * The conversation each provider's real client has with the stub under {@link #SCRIPT}: a KeyError, which the script
 * answers with a call of the probe tool, then the probe's result, 42, from which it builds its reply.
 */
final class ProbeRoundTrip {

    static final String SCRIPT = """
            rules:
              - when:
                  last_tool_result_matches: '(\\d+)'
                reply:
                  text: "value {{match:1}}"
              - when:
                  contains: "KeyError"
                  tools: true
                reply:
                  tool_calls:
                    - name: probe
                      arguments: {code: "print(repr(x))", timeout_s: 5}
            default:
              text: "no rule"
            """;
    static final String PROBE_ARGUMENTS = "{\"code\":\"print(repr(x))\",\"timeout_s\":5}";
    static final ToolSpecification PROBE = ToolSpecification.builder()
            .name("probe")
            .description("Runs Python in the paused frame")
            .parameters(JsonObjectSchema.builder()
                    .addStringProperty("code")
                    .addIntegerProperty("timeout_s")
                    .required("code")
                    .build())
            .build();

    private final ChatModel model;
    private final List<ChatMessage> messages;

    /** A conversation with {@code model} that opens with {@code opening}. */
    ProbeRoundTrip(ChatModel model, ChatMessage... opening) {
        this.model = model;
        this.messages = new ArrayList<>(List.of(opening));
    }

    /** Sends the conversation so far, offering the probe tool. */
    ChatResponse send() {
        return model.chat(ChatRequest.builder().messages(messages).toolSpecifications(PROBE).build());
    }

    /** Answers the probe call of {@code asked} with the result 42, and sends the conversation on. */
    ChatResponse answerProbe(ChatResponse asked) {
        messages.add(asked.aiMessage());
        messages.add(ToolExecutionResultMessage.from(asked.aiMessage().toolExecutionRequests().get(0), "42"));
        return send();
    }

    /** The stub's token count for a text of {@code bytes} bytes: a quarter, rounded up. */
    static int ceilQuarter(int bytes) {
        return (bytes + 3) / 4;
    }
}
