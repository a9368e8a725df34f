package io.healbench.agent.cassette;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.http.client.HttpMethod;
import dev.langchain4j.http.client.HttpRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What makes two requests the same request to a cassette, and what does not. */
class CassetteKeyTest {

    private static final String URL = "http://127.0.0.1:4000/v1/chat/completions";

    @Test
    void bodiesDifferingOnlyInObjectAddressesShareAKey() {
        String first = key(URL, "{\"content\":\"x = <Foo object at 0x7f3a9c0d1e50>, y = <Bar at 0x7F0000AB12>\"}");
        String second = key(URL, "{\"content\":\"x = <Foo object at 0x55d0c0ffee08>, y = <Bar at 0x7f9999cd34>\"}");

        assertEquals(first, second);
    }

    @Test
    void shortHexLiteralsAreNotAddresses() {
        assertNotEquals(key(URL, "{\"content\":\"flags = 0x1f\"}"), key(URL, "{\"content\":\"flags = 0x2f\"}"));
    }

    @Test
    void theStoredRequestKeepsTheAddresses() {
        String body = "{\"content\":\"<Foo object at 0x7f3a9c0d1e50>\"}";

        assertEquals(body, CassetteRequest.of(post(URL, body)).body());
    }

    @Test
    void fieldOrderAndWhitespaceDoNotChangeTheKey() {
        String compact = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"temperature\":0.70}";
        String reordered = """
                {
                  "temperature": 0.70,
                  "messages": [ { "content": "hi", "role": "user" } ],
                  "model": "m"
                }""";

        assertEquals(key(URL, compact), key(URL, reordered));
    }

    @Test
    void aDifferentPromptIsADifferentKey() {
        assertNotEquals(key(URL, "{\"content\":\"hi\"}"), key(URL, "{\"content\":\"ho\"}"));
    }

    @Test
    void hostAndPortDoNotChangeTheKeyButThePathDoes() {
        String body = "{\"content\":\"hi\"}";

        assertEquals(key(URL, body), key("https://api.example.com:8443/v1/chat/completions", body));
        assertNotEquals(key(URL, body), key("http://127.0.0.1:4000/v2/chat/completions", body));
    }

    @Test
    void theMethodIsPartOfTheKey() {
        HttpRequest get = HttpRequest.builder().method(HttpMethod.GET).url(URL).build();
        HttpRequest post = HttpRequest.builder().method(HttpMethod.POST).url(URL).build();

        assertNotEquals(CassetteRequest.of(get).key(), CassetteRequest.of(post).key());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            nested objects sorted | {"b":{"z":1,"a":[{"y":true,"x":null}]},"a":"s"} | {"a":"s","b":{"a":[{"x":null,"y":true}],"z":1}}
            numbers as written    | {"t": 0.70, "big": 123456789012345678901234567890, "e": 1e400} | {"big":123456789012345678901234567890,"e":1E+400,"t":0.70}
            not JSON, verbatim    | model=m&prompt=hi                                | model=m&prompt=hi
            trailing text         | {"a":1} and more                                 | {"a":1} and more
            """)
    void canonicalBodies(String name, String body, String canonical) {
        assertEquals(canonical, CanonicalBody.of(body));
    }

    @Test
    void aMissingBodyIsEmpty() {
        assertEquals("", CanonicalBody.of(null));
    }

    @Test
    void theKeyIsSha256Hex() {
        assertTrue(key(URL, "{}").matches("[0-9a-f]{64}"));
    }

    private static String key(String url, String body) {
        return CassetteRequest.of(post(url, body)).key();
    }

    private static HttpRequest post(String url, String body) {
        return HttpRequest.builder().method(HttpMethod.POST).url(url).body(body).build();
    }
}
