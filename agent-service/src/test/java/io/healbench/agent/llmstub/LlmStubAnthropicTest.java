package io.healbench.agent.llmstub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.anthropic.AnthropicChatModel;
import dev.langchain4j.model.anthropic.AnthropicTokenUsage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
            """ + LlmStubOpenAiTest.SCRIPT.substring("rules:\n".length());

    @TempDir
    Path dir;

    private LlmStubServer server;
    private AnthropicChatModel model;

    @BeforeEach
    void start() {
        server = LlmStubServer.start(ScriptFiles.load(dir, SCRIPT), "127.0.0.1", 0, null);
        model = AnthropicChatModel.builder()
                .baseUrl(server.anthropicBaseUrl())
                .apiKey("test-key")
                .modelName("stub-claude")
                .maxTokens(1024)
                .maxRetries(0)
                .build();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void toolUseRoundTrip() throws Exception {
        List<ChatMessage> messages = new ArrayList<>(List.of(SystemMessage.from("You heal crashes."), UserMessage.from("KeyError: 'a'")));

        ChatResponse first = model.chat(ChatRequest.builder().messages(messages).toolSpecifications(LlmStubOpenAiTest.PROBE).build());

        ToolExecutionRequest call = first.aiMessage().toolExecutionRequests().get(0);
        assertEquals(1, first.aiMessage().toolExecutionRequests().size());
        assertEquals("probe", call.name());
        assertEquals("toolu_1_1", call.id());
        ObjectMapper json = new ObjectMapper();
        assertEquals(json.readTree(LlmStubOpenAiTest.PROBE_ARGUMENTS), json.readTree(call.arguments()));
        assertEquals(FinishReason.TOOL_EXECUTION, first.finishReason());
        assertEquals("stub-claude", first.modelName());
        int bodyBytes = server.requestBodies().get(0).getBytes(StandardCharsets.UTF_8).length;
        AnthropicTokenUsage usage = assertInstanceOf(AnthropicTokenUsage.class, first.tokenUsage());
        assertEquals(LlmStubOpenAiTest.ceilQuarter(bodyBytes), usage.inputTokenCount());
        assertEquals(LlmStubOpenAiTest.ceilQuarter(LlmStubOpenAiTest.PROBE_ARGUMENTS.length()), usage.outputTokenCount());
        assertEquals(0, usage.cacheReadInputTokens());

        messages.add(first.aiMessage());
        messages.add(ToolExecutionResultMessage.from(call, "42"));
        ChatResponse second = model.chat(ChatRequest.builder().messages(messages).toolSpecifications(LlmStubOpenAiTest.PROBE).build());

        assertEquals("value 42", second.aiMessage().text());
        assertFalse(second.aiMessage().hasToolExecutionRequests());
        assertEquals(FinishReason.STOP, second.finishReason());
        JsonNode toolResult = json.readTree(server.requestBodies().get(1)).path("messages").path(2).path("content").path(0);
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
        assertFalse(server.requestBodies().get(0).contains("test-key"));
    }
}
