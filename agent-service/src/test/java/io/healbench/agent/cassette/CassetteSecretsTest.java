package io.healbench.agent.cassette;

import static io.healbench.agent.cassette.ChatCompletionsServer.API_KEY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.langchain4j.http.client.HttpClient;
import dev.langchain4j.http.client.HttpMethod;
import dev.langchain4j.http.client.HttpRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Nothing that authenticates a request reaches a cassette file. */
class CassetteSecretsTest {

    @TempDir
    Path dir;

    @Test
    void anApiKeyNeverReachesTheFileHoweverItIsSent() throws IOException {
        Path file = dir.resolve("secrets.jsonl");
        try (ChatCompletionsServer server = new ChatCompletionsServer();
                Cassette cassette = Cassette.open(file, CassetteMode.RECORD)) {
            server.model(cassette).chat("hello"); // OpenAI: Authorization: Bearer
            HttpClient client = new CassetteHttpClientBuilder(cassette).build();
            String endpoint = server.baseUrl() + "/chat/completions";
            client.execute(post(endpoint).addHeader("x-api-key", API_KEY).build()); // Anthropic
            client.execute(post(endpoint).addHeader("x-goog-api-key", API_KEY).build()); // Gemini
            client.execute(post(endpoint + "?alt=json&key=" + API_KEY).build()); // Gemini, older style
            client.execute(post(endpoint).addQueryParam("access_token", API_KEY).addQueryParam("Client_Secret", API_KEY).build());
            assertEquals(5, cassette.exchangesRecorded());
        }

        String content = Files.readString(file);
        assertFalse(content.contains(API_KEY), content);
        assertFalse(content.contains("secret-test"), content);
        assertFalse(content.toLowerCase().contains("authorization"), content);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            gemini key             | https://g.example/v1beta/models/m:generateContent?key=S        | https://g.example/v1beta/models/m:generateContent
            kept and dropped       | https://h.example/v1/x?alt=sse&api_key=S&n=2                  | https://h.example/v1/x?alt=sse&n=2
            names in any case      | https://h.example/x?Access_Token=S&CLIENT_SECRET=S&X-Api-Key=S | https://h.example/x
            encoded names          | https://h.example/x?api%5Fkey=S&to%6Ben=S&a=1                 | https://h.example/x?a=1
            user info and fragment | https://user:S@h.example:8443/v1/x?a=1#S                      | https://h.example:8443/v1/x?a=1
            no path                | https://h.example?token=S                                     | https://h.example/
            """)
    void urlsLoseTheirSecrets(String name, String raw, String sanitized) {
        assertEquals(sanitized, SanitizedUrl.of(raw).url());
    }

    @Test
    void theKeyedPathHasNoHostOrPort() {
        SanitizedUrl url = SanitizedUrl.of("http://127.0.0.1:4000/v1/chat/completions?alt=sse&key=S");

        assertEquals("/v1/chat/completions?alt=sse", url.path());
    }

    @Test
    void aRecordedLineHoldsTheExchangeAndNoHeaders() throws IOException {
        Path file = dir.resolve("line.jsonl");
        try (ChatCompletionsServer server = new ChatCompletionsServer();
                Cassette cassette = Cassette.open(file, CassetteMode.RECORD)) {
            server.model(cassette).chat("hello");
        }

        List<String> lines = Files.readAllLines(file);
        assertEquals(1, lines.size());
        RecordedExchange exchange = CassetteFormat.parse(file, lines.get(0)).get(0);
        assertEquals(0, exchange.seq());
        assertEquals("POST", exchange.method());
        assertEquals(200, exchange.status());
        assertEquals("application/json", exchange.contentType());
        assertEquals("{\"messages\":[{\"content\":\"hello\",\"role\":\"user\"}],\"model\":\"m\",\"stream\":false}", exchange.request());
        assertFalse(lines.get(0).contains("User-Agent") || lines.get(0).contains("Bearer"), lines.get(0));
    }

    private static HttpRequest.Builder post(String url) {
        return HttpRequest.builder().method(HttpMethod.POST).url(url).addHeader("Content-Type", "application/json")
                .addHeader("Authorization", "Bearer " + API_KEY).body("{\"model\":\"m\",\"messages\":[]}");
    }
}
