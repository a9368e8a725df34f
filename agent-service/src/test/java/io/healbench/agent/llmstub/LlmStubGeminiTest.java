package io.healbench.agent.llmstub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.googleai.GoogleAiGeminiChatModel;
import dev.langchain4j.model.googleai.GoogleAiGeminiTokenUsage;
import dev.langchain4j.model.output.FinishReason;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real LangChain4j Gemini client against the stub: a functionCall, then a reply from the functionResponse. */
class LlmStubGeminiTest {

    @TempDir
    Path dir;

    private LlmStubServer server;
    private GoogleAiGeminiChatModel model;

    @BeforeEach
    void start() {
        server = LlmStubServer.start(ScriptFiles.load(dir, LlmStubOpenAiTest.SCRIPT), "127.0.0.1", 0, null);
        model = GoogleAiGeminiChatModel.builder()
                .baseUrl(server.geminiBaseUrl())
                .apiKey("test-key")
                .modelName("gemini-stub")
                .temperature(0.0)
                .maxRetries(0)
                .build();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void functionCallRoundTrip() throws Exception {
        List<ChatMessage> messages = new ArrayList<>(List.of(SystemMessage.from("You heal crashes."), UserMessage.from("KeyError: 'a'")));

        ChatResponse first = model.chat(ChatRequest.builder().messages(messages).toolSpecifications(LlmStubOpenAiTest.PROBE).build());

        ToolExecutionRequest call = first.aiMessage().toolExecutionRequests().get(0);
        assertEquals("probe", call.name());
        ObjectMapper json = new ObjectMapper();
        assertEquals(json.readTree(LlmStubOpenAiTest.PROBE_ARGUMENTS), json.readTree(call.arguments()));
        assertEquals(FinishReason.TOOL_EXECUTION, first.finishReason());
        int bodyBytes = server.requestBodies().get(0).getBytes(StandardCharsets.UTF_8).length;
        GoogleAiGeminiTokenUsage usage = assertInstanceOf(GoogleAiGeminiTokenUsage.class, first.tokenUsage());
        assertEquals(LlmStubOpenAiTest.ceilQuarter(bodyBytes), usage.inputTokenCount());
        assertEquals(LlmStubOpenAiTest.ceilQuarter(LlmStubOpenAiTest.PROBE_ARGUMENTS.length()), usage.outputTokenCount());
        assertEquals(0, usage.cachedContentTokenCount());

        messages.add(first.aiMessage());
        messages.add(ToolExecutionResultMessage.from(call, "42"));
        ChatResponse second = model.chat(ChatRequest.builder().messages(messages).toolSpecifications(LlmStubOpenAiTest.PROBE).build());

        assertEquals("value 42", second.aiMessage().text());
        assertEquals(FinishReason.STOP, second.finishReason());
        assertFalse(String.join("\n", server.requestBodies()).contains("test-key"));
    }
}
