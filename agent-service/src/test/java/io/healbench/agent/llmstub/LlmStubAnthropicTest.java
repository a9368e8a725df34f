package io.healbench.agent.llmstub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.anthropic.AnthropicChatModel;
import dev.langchain4j.model.anthropic.AnthropicTokenUsage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The real LangChain4j Anthropic client against the stub: tool_use, tool_result round trip, usage and its override. */
class LlmStubAnthropicTest {

    private static final String SCRIPT = """
            rules:
              - when:
                  contains: "cached please"
                reply:
                  text: "from cache"
                  finish: length
                  usage: {input_tokens: 100, output_tokens: 7, cached_input_tokens: 60}
            """ + ProbeRoundTrip.SCRIPT.substring("rules:\n".length());

    @RegisterExtension
    final ScriptedStub stub = new ScriptedStub(SCRIPT, null);

    private AnthropicChatModel model;

    @BeforeEach
    void connect() {
        model = AnthropicChatModel.builder()
                .baseUrl(stub.server().anthropicBaseUrl())
                .apiKey("test-key")
                .modelName("stub-claude")
                .maxTokens(1024)
                .maxRetries(0)
                .build();
    }

    @Test
    void toolUseRoundTrip() throws Exception {
        ProbeRoundTrip conversation = new ProbeRoundTrip(model, SystemMessage.from("You heal crashes."), UserMessage.from("KeyError: 'a'"));

        ChatResponse first = conversation.send();

        ToolExecutionRequest call = first.aiMessage().toolExecutionRequests().get(0);
        assertEquals(1, first.aiMessage().toolExecutionRequests().size());
        assertEquals("probe", call.name());
        assertEquals("toolu_1_1", call.id());
        ObjectMapper json = new ObjectMapper();
        assertEquals(json.readTree(ProbeRoundTrip.PROBE_ARGUMENTS), json.readTree(call.arguments()));
        assertEquals(FinishReason.TOOL_EXECUTION, first.finishReason());
        assertEquals("stub-claude", first.modelName());
        int bodyBytes = stub.server().requestBodies().get(0).getBytes(StandardCharsets.UTF_8).length;
        AnthropicTokenUsage usage = assertInstanceOf(AnthropicTokenUsage.class, first.tokenUsage());
        assertEquals(ProbeRoundTrip.ceilQuarter(bodyBytes), usage.inputTokenCount());
        assertEquals(ProbeRoundTrip.ceilQuarter(ProbeRoundTrip.PROBE_ARGUMENTS.length()), usage.outputTokenCount());
        assertEquals(0, usage.cacheReadInputTokens());

        ChatResponse second = conversation.answerProbe(first);

        assertEquals("value 42", second.aiMessage().text());
        assertFalse(second.aiMessage().hasToolExecutionRequests());
        assertEquals(FinishReason.STOP, second.finishReason());
        JsonNode toolResult = json.readTree(stub.server().requestBodies().get(1)).path("messages").path(2).path("content").path(0);
        assertEquals("tool_result", toolResult.path("type").asText());
        assertEquals("toolu_1_1", toolResult.path("tool_use_id").asText());
    }

    @Test
    void usageAndFinishOverridesReachTheClient() {
        ChatResponse response = model.chat(ChatRequest.builder().messages(UserMessage.from("cached please")).build());

        assertEquals("from cache", response.aiMessage().text());
        assertEquals(FinishReason.LENGTH, response.finishReason());
        AnthropicTokenUsage usage = assertInstanceOf(AnthropicTokenUsage.class, response.tokenUsage());
        assertEquals(100, usage.inputTokenCount());
        assertEquals(7, usage.outputTokenCount());
        assertEquals(60, usage.cacheReadInputTokens());
        assertFalse(stub.server().requestBodies().get(0).contains("test-key"));
    }
}
