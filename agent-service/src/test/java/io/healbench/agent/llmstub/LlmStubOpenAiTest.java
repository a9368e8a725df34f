package io.healbench.agent.llmstub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiTokenUsage;
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

/** The real LangChain4j OpenAI client against the stub: a scripted tool call, then a reply built from the tool's result. */
class LlmStubOpenAiTest {

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

    @TempDir
    Path dir;

    private LlmStubServer server;
    private OpenAiChatModel model;

    @BeforeEach
    void start() {
        server = LlmStubServer.start(ScriptFiles.load(dir, SCRIPT), "127.0.0.1", 0, Duration.ZERO);
        model = OpenAiChatModel.builder()
                .baseUrl(server.openAiBaseUrl())
                .apiKey("test-key")
                .modelName("stub-model")
                .temperature(0.0)
                .maxRetries(0)
                .build();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void answersWithTheScriptedToolCallAndComputedUsage() throws Exception {
        List<ChatMessage> messages = List.of(SystemMessage.from("You heal crashes."), UserMessage.from("KeyError: 'a'"));

        ChatResponse response = model.chat(ChatRequest.builder().messages(messages).toolSpecifications(PROBE).build());

        AiMessage ai = response.aiMessage();
        assertEquals(1, ai.toolExecutionRequests().size());
        ToolExecutionRequest call = ai.toolExecutionRequests().get(0);
        assertEquals("probe", call.name());
        assertEquals("call_1_1", call.id());
        ObjectMapper json = new ObjectMapper();
        assertEquals(json.readTree(PROBE_ARGUMENTS), json.readTree(call.arguments()));
        assertEquals(FinishReason.TOOL_EXECUTION, response.finishReason());
        assertEquals("stub-model", response.modelName());

        int bodyBytes = server.requestBodies().get(0).getBytes(StandardCharsets.UTF_8).length;
        OpenAiTokenUsage usage = assertInstanceOf(OpenAiTokenUsage.class, response.tokenUsage());
        assertEquals(ceilQuarter(bodyBytes), usage.inputTokenCount());
        assertEquals(ceilQuarter(PROBE_ARGUMENTS.length()), usage.outputTokenCount());
        assertEquals(usage.inputTokenCount() + usage.outputTokenCount(), usage.totalTokenCount());
        assertEquals(0, usage.inputTokensDetails().cachedTokens());
    }

    @Test
    void secondTurnRepliesFromTheToolResult() throws Exception {
        List<ChatMessage> messages = new ArrayList<>(List.of(UserMessage.from("KeyError: 'a'")));
        ChatResponse first = model.chat(ChatRequest.builder().messages(messages).toolSpecifications(PROBE).build());
        messages.add(first.aiMessage());
        messages.add(ToolExecutionResultMessage.from(first.aiMessage().toolExecutionRequests().get(0), "42"));

        ChatResponse second = model.chat(ChatRequest.builder().messages(messages).toolSpecifications(PROBE).build());

        assertEquals("value 42", second.aiMessage().text());
        assertFalse(second.aiMessage().hasToolExecutionRequests());
        assertEquals(FinishReason.STOP, second.finishReason());
        assertEquals(2, server.requestsServed());
        JsonNode toolMessage = new ObjectMapper().readTree(server.requestBodies().get(1)).path("messages").path(2);
        assertEquals("tool", toolMessage.path("role").asText());
        assertEquals("call_1_1", toolMessage.path("tool_call_id").asText());
    }

    @Test
    void neverKeepsTheApiKey() {
        model.chat(ChatRequest.builder().messages(UserMessage.from("hello")).build());

        assertEquals(1, server.requestBodies().size());
        assertFalse(server.requestBodies().get(0).contains("test-key"));
    }

    static int ceilQuarter(int bytes) {
        return (bytes + 3) / 4;
    }
}
