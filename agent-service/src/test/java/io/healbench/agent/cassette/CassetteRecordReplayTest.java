package io.healbench.agent.cassette;

import static io.healbench.agent.cassette.ChatCompletionsServer.FAILING_PROMPT;
import static io.healbench.agent.cassette.ChatCompletionsServer.NOWHERE;
import static io.healbench.agent.cassette.ChatCompletionsServer.SLOW_PROMPT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.exception.HttpException;
import dev.langchain4j.exception.InvalidRequestException;
import dev.langchain4j.exception.TimeoutException;
import dev.langchain4j.http.client.HttpClient;
import dev.langchain4j.http.client.HttpMethod;
import dev.langchain4j.http.client.HttpRequest;
import dev.langchain4j.http.client.sse.DefaultServerSentEventParser;
import dev.langchain4j.http.client.sse.ServerSentEvent;
import dev.langchain4j.http.client.sse.ServerSentEventListener;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real OpenAI chat models recording through a cassette against a loopback server, then replaying without it. */
class CassetteRecordReplayTest {

    @TempDir
    Path dir;
    Path file;
    ChatCompletionsServer server;

    @BeforeEach
    void start() throws IOException {
        file = dir.resolve("cassettes/run.jsonl");
        server = new ChatCompletionsServer();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void replayGivesTheRecordedAnswersWithoutTheServer() {
        try (Cassette cassette = Cassette.open(file, CassetteMode.RECORD)) {
            ChatModel model = server.model(cassette);
            assertEquals("answer 1", model.chat("hello"));
            assertEquals("answer 2", model.chat("how are you?"));
            assertExchanges(cassette, 2, 0);
        }
        assertEquals(2, server.hits());
        server.close();

        try (Cassette cassette = Cassette.open(file, CassetteMode.REPLAY)) {
            ChatModel model = ChatCompletionsServer.model(NOWHERE, cassette, 0);
            assertEquals("answer 1", model.chat("hello"));
            assertEquals("answer 2", model.chat("how are you?"));
            assertExchanges(cassette, 0, 2);
        }
        assertEquals(2, server.hits());
    }

    @Test
    void aPromptNotRecordedIsADivergenceNamingItsRequest() {
        record("hello");

        try (Cassette cassette = Cassette.open(file, CassetteMode.REPLAY)) {
            ChatModel model = ChatCompletionsServer.model(NOWHERE, cassette, 0);
            assertEquals("answer 1", model.chat("hello"));
            RuntimeException escaped = assertThrows(RuntimeException.class, () -> model.chat("something else"));

            CassetteDivergenceException divergence = divergenceIn(escaped);
            assertEquals(2, divergence.requestOrdinal());
            assertTrue(divergence.getMessage().contains("request 2 (POST /v1/chat/completions)"), divergence.getMessage());
            assertTrue(divergence.getMessage().contains("no recorded exchange matches"), divergence.getMessage());
            assertTrue(divergence.getMessage().contains(file.toString()), divergence.getMessage());
        }
        assertEquals(1, server.hits());
    }

    @Test
    void langChainDoesNotRetryADivergence() {
        record("hello");

        try (Cassette cassette = Cassette.open(file, CassetteMode.REPLAY)) {
            ChatModel model = ChatCompletionsServer.model(NOWHERE, cassette, 3);
            RuntimeException escaped = assertThrows(RuntimeException.class, () -> model.chat("something else"));

            // a retry would have asked the cassette again, and the divergence that escaped would be request 4
            assertEquals(1, divergenceIn(escaped).requestOrdinal());
        }
    }

    @Test
    void repeatedRequestsReplayTheirRecordingsInOrderAndThenDiverge() {
        record("hello", "hello");

        try (Cassette cassette = Cassette.open(file, CassetteMode.REPLAY)) {
            ChatModel model = ChatCompletionsServer.model(NOWHERE, cassette, 0);
            assertEquals("answer 1", model.chat("hello"));
            assertEquals("answer 2", model.chat("hello"));
            CassetteDivergenceException divergence = divergenceIn(assertThrows(RuntimeException.class, () -> model.chat("hello")));
            assertEquals(3, divergence.requestOrdinal());
            assertTrue(divergence.getMessage().contains("all replayed earlier"), divergence.getMessage());
        }
    }

    @Test
    void recordMissingReplaysWhatItHasAndAppendsWhatItLacks() throws IOException {
        record("hello");

        try (Cassette cassette = Cassette.open(file, CassetteMode.RECORD_MISSING)) {
            ChatModel model = server.model(cassette);
            assertEquals("answer 1", model.chat("hello"));
            assertEquals(1, server.hits());
            assertEquals("answer 2", model.chat("new question"));
            assertEquals("answer 3", model.chat("hello"));
            assertEquals(3, server.hits());
            assertExchanges(cassette, 2, 1);
        }
        List<String> lines = Files.readAllLines(file);
        assertEquals(3, lines.size());
        assertTrue(lines.get(2).contains("\"seq\":2"), lines.get(2));
        server.close();

        try (Cassette cassette = Cassette.open(file, CassetteMode.REPLAY)) {
            ChatModel model = ChatCompletionsServer.model(NOWHERE, cassette, 0);
            assertEquals("answer 2", model.chat("new question"));
            assertEquals("answer 1", model.chat("hello"));
            assertEquals("answer 3", model.chat("hello"));
        }
    }

    @Test
    void aRecordedErrorReplaysAsTheSameError() {
        InvalidRequestException live;
        try (Cassette cassette = Cassette.open(file, CassetteMode.RECORD)) {
            ChatModel model = server.model(cassette);
            live = assertThrows(InvalidRequestException.class, () -> model.chat(FAILING_PROMPT));
            assertEquals(1, cassette.exchangesRecorded());
        }
        server.close();

        try (Cassette cassette = Cassette.open(file, CassetteMode.REPLAY)) {
            ChatModel model = ChatCompletionsServer.model(NOWHERE, cassette, 0);
            InvalidRequestException replayed = assertThrows(InvalidRequestException.class, () -> model.chat(FAILING_PROMPT));

            HttpException cause = assertInstanceOf(HttpException.class, replayed.getCause());
            assertEquals(400, cause.statusCode());
            assertEquals(live.getMessage(), replayed.getMessage());
        }
        assertEquals(1, server.hits());
    }

    @Test
    void objectAddressesInThePromptDoNotBreakTheMatch() {
        record("locals: conn=<Connection object at 0x7f3a9c0d1e50>");

        try (Cassette cassette = Cassette.open(file, CassetteMode.REPLAY)) {
            ChatModel model = ChatCompletionsServer.model(NOWHERE, cassette, 0);
            assertEquals("answer 1", model.chat("locals: conn=<Connection object at 0x55d0c0ffee08>"));
        }
    }

    @Test
    void recordStartsTheFileAfresh() throws IOException {
        record("first session");
        record("second session");

        List<String> lines = Files.readAllLines(file);
        assertEquals(1, lines.size());
        assertTrue(lines.get(0).contains("second session") && lines.get(0).contains("\"seq\":0"), lines.get(0));
    }

    @Test
    void offPassesThroughAndStoresNothing() {
        try (Cassette cassette = Cassette.open(file, CassetteMode.OFF)) {
            ChatModel model = server.model(cassette);
            assertEquals("answer 1", model.chat("hello"));
            assertEquals("answer 2", model.chat("hello"));
            assertExchanges(cassette, 0, 0);
        }
        assertEquals(2, server.hits());
        assertFalse(Files.exists(file));
    }

    @Test
    void streamingIsRefusedUnlessOff() {
        try (Cassette cassette = Cassette.open(file, CassetteMode.RECORD)) {
            HttpClient client = new CassetteHttpClientBuilder(cassette).build();
            HttpRequest request = HttpRequest.builder().method(HttpMethod.POST)
                    .url(server.baseUrl() + "/chat/completions").body("{\"stream\":true}").build();

            UnsupportedOperationException error = assertThrows(UnsupportedOperationException.class,
                    () -> client.execute(request, new DefaultServerSentEventParser(), new IgnoringListener()));
            assertTrue(error.getMessage().contains("streaming"), error.getMessage());
        }
        assertEquals(0, server.hits());
    }

    @Test
    void theModelsTimeoutReachesTheNetworkClient() {
        try (Cassette cassette = Cassette.open(file, CassetteMode.RECORD)) {
            ChatModel model = OpenAiChatModel.builder()
                    .baseUrl(server.baseUrl())
                    .apiKey(ChatCompletionsServer.API_KEY)
                    .modelName("m")
                    .maxRetries(0)
                    .timeout(Duration.ofMillis(100))
                    .httpClientBuilder(new CassetteHttpClientBuilder(cassette))
                    .build();

            assertThrows(TimeoutException.class, () -> model.chat(SLOW_PROMPT));
            assertEquals(0, cassette.exchangesRecorded());
        }
    }

    @Test
    void aClosedCassetteRefusesRequests() {
        Cassette cassette = Cassette.open(file, CassetteMode.RECORD);
        ChatModel model = server.model(cassette);
        cassette.close();

        RuntimeException escaped = assertThrows(RuntimeException.class, () -> model.chat("hello"));
        assertTrue(escaped.getMessage().contains("is closed"), escaped.getMessage());
        assertEquals(0, server.hits());
    }

    private static void assertExchanges(Cassette cassette, int recorded, int replayed) {
        assertEquals(recorded, cassette.exchangesRecorded(), "exchanges recorded");
        assertEquals(replayed, cassette.exchangesReplayed(), "exchanges replayed");
    }

    private void record(String... prompts) {
        try (Cassette cassette = Cassette.open(file, CassetteMode.RECORD)) {
            ChatModel model = server.model(cassette);
            for (String prompt : prompts) {
                model.chat(prompt);
            }
        }
    }

    private static CassetteDivergenceException divergenceIn(Throwable escaped) {
        for (Throwable t = escaped; t != null; t = t.getCause()) {
            if (t instanceof CassetteDivergenceException divergence) {
                return divergence;
            }
        }
        throw new AssertionError("no CassetteDivergenceException in the cause chain of " + escaped, escaped);
    }

    /** A streaming listener for a call that must never start. */
    private static final class IgnoringListener implements ServerSentEventListener {
        @Override
        public void onEvent(ServerSentEvent event) {
        }

        @Override
        public void onError(Throwable error) {
        }
    }
}
