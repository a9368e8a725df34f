package io.healbench.agent.llmstub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiTokenUsage;
import dev.langchain4j.model.output.FinishReason;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The real LangChain4j OpenAI client against the stub: a scripted tool call, then a reply built from the tool's result. */
class LlmStubOpenAiTest {

    @RegisterExtension
    final ScriptedStub stub = new ScriptedStub(ProbeRoundTrip.SCRIPT, Duration.ZERO);

    private OpenAiChatModel model;

    @BeforeEach
    void connect() {
        model = OpenAiChatModel.builder()
                .baseUrl(stub.server().openAiBaseUrl())
                .apiKey("test-key")
                .modelName("stub-model")
                .temperature(0.0)
                .maxRetries(0)
                .build();
    }

    @Test
    void answersWithTheScriptedToolCallAndComputedUsage() throws Exception {
        ChatResponse response = new ProbeRoundTrip(model, SystemMessage.from("You heal crashes."), UserMessage.from("KeyError: 'a'")).send();

        AiMessage ai = response.aiMessage();
        assertEquals(1, ai.toolExecutionRequests().size());
        ToolExecutionRequest call = ai.toolExecutionRequests().get(0);
        assertEquals("probe", call.name());
        assertEquals("call_1_1", call.id());
        ObjectMapper json = new ObjectMapper();
        assertEquals(json.readTree(ProbeRoundTrip.PROBE_ARGUMENTS), json.readTree(call.arguments()));
        assertEquals(FinishReason.TOOL_EXECUTION, response.finishReason());
        assertEquals("stub-model", response.modelName());

        int bodyBytes = stub.server().requestBodies().get(0).getBytes(StandardCharsets.UTF_8).length;
        OpenAiTokenUsage usage = assertInstanceOf(OpenAiTokenUsage.class, response.tokenUsage());
        assertEquals(ProbeRoundTrip.ceilQuarter(bodyBytes), usage.inputTokenCount());
        assertEquals(ProbeRoundTrip.ceilQuarter(ProbeRoundTrip.PROBE_ARGUMENTS.length()), usage.outputTokenCount());
        assertEquals(usage.inputTokenCount() + usage.outputTokenCount(), usage.totalTokenCount());
        assertEquals(0, usage.inputTokensDetails().cachedTokens());
    }

    @Test
    void secondTurnRepliesFromTheToolResult() throws Exception {
        ProbeRoundTrip conversation = new ProbeRoundTrip(model, UserMessage.from("KeyError: 'a'"));
        ChatResponse first = conversation.send();

        ChatResponse second = conversation.answerProbe(first);

        assertEquals("value 42", second.aiMessage().text());
        assertFalse(second.aiMessage().hasToolExecutionRequests());
        assertEquals(FinishReason.STOP, second.finishReason());
        assertEquals(2, stub.server().requestsServed());
        JsonNode toolMessage = new ObjectMapper().readTree(stub.server().requestBodies().get(1)).path("messages").path(2);
        assertEquals("tool", toolMessage.path("role").asText());
        assertEquals("call_1_1", toolMessage.path("tool_call_id").asText());
    }

    @Test
    void neverKeepsTheApiKey() {
        model.chat(ChatRequest.builder().messages(UserMessage.from("hello")).build());

        assertEquals(1, stub.server().requestBodies().size());
        assertFalse(stub.server().requestBodies().get(0).contains("test-key"));
    }
}
