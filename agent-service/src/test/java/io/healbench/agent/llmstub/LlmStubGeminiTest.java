package io.healbench.agent.llmstub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.googleai.GoogleAiGeminiChatModel;
import dev.langchain4j.model.googleai.GoogleAiGeminiTokenUsage;
import dev.langchain4j.model.output.FinishReason;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The real LangChain4j Gemini client against the stub: a functionCall, then a reply from the functionResponse. */
class LlmStubGeminiTest {

    @RegisterExtension
    final ScriptedStub stub = new ScriptedStub(ProbeRoundTrip.SCRIPT, null);

    private GoogleAiGeminiChatModel model;

    @BeforeEach
    void connect() {
        model = GoogleAiGeminiChatModel.builder()
                .baseUrl(stub.server().geminiBaseUrl())
                .apiKey("test-key")
                .modelName("gemini-stub")
                .temperature(0.0)
                .maxRetries(0)
                .build();
    }

    @Test
    void functionCallRoundTrip() throws Exception {
        ProbeRoundTrip conversation = new ProbeRoundTrip(model, SystemMessage.from("You heal crashes."), UserMessage.from("KeyError: 'a'"));

        ChatResponse first = conversation.send();

        ToolExecutionRequest call = first.aiMessage().toolExecutionRequests().get(0);
        assertEquals("probe", call.name());
        ObjectMapper json = new ObjectMapper();
        assertEquals(json.readTree(ProbeRoundTrip.PROBE_ARGUMENTS), json.readTree(call.arguments()));
        assertEquals(FinishReason.TOOL_EXECUTION, first.finishReason());
        int bodyBytes = stub.server().requestBodies().get(0).getBytes(StandardCharsets.UTF_8).length;
        GoogleAiGeminiTokenUsage usage = assertInstanceOf(GoogleAiGeminiTokenUsage.class, first.tokenUsage());
        assertEquals(ProbeRoundTrip.ceilQuarter(bodyBytes), usage.inputTokenCount());
        assertEquals(ProbeRoundTrip.ceilQuarter(ProbeRoundTrip.PROBE_ARGUMENTS.length()), usage.outputTokenCount());
        assertEquals(0, usage.cachedContentTokenCount());

        ChatResponse second = conversation.answerProbe(first);

        assertEquals("value 42", second.aiMessage().text());
        assertEquals(FinishReason.STOP, second.finishReason());
        assertFalse(String.join("\n", stub.server().requestBodies()).contains("test-key"));
    }
}
