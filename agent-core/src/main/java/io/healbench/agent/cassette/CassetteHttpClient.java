package io.healbench.agent.cassette;

import dev.langchain4j.exception.HttpException;
import dev.langchain4j.http.client.HttpClient;
import dev.langchain4j.http.client.HttpRequest;
import dev.langchain4j.http.client.SuccessfulHttpResponse;
import dev.langchain4j.http.client.sse.ServerSentEventListener;
import dev.langchain4j.http.client.sse.ServerSentEventParser;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The HTTP client a model gets from a {@link CassetteHttpClientBuilder}: it answers each request from its
 * {@link Cassette} or from the network, as the cassette's mode says, and records what the network answered. It reports
 * answers the way {@link dev.langchain4j.http.client.jdk.JdkHttpClient} does (a 2xx as a response, anything else as an
 * {@link HttpException} carrying the status and the body) so that the models map a replayed error exactly like a live one.
 */
final class CassetteHttpClient implements HttpClient {

    private final Cassette cassette;
    /** The JDK client; {@code null} in {@link CassetteMode#REPLAY}, which must never reach the network. */
    private final HttpClient network;

    CassetteHttpClient(Cassette cassette, HttpClient network) {
        this.cassette = cassette;
        this.network = network;
    }

    @Override
    public SuccessfulHttpResponse execute(HttpRequest request) {
        if (cassette.mode() == CassetteMode.OFF) {
            return network.execute(request);
        }
        if (!request.formDataFields().isEmpty() || !request.formDataFiles().isEmpty()) {
            // the key covers the body string only, so two different uploads would answer for each other
            throw new UnsupportedOperationException("a cassette in mode " + cassette.mode()
                    + " cannot hold multipart form requests (" + request.method() + " " + SanitizedUrl.of(request.url()).path() + ")");
        }
        CassetteRequest asked = CassetteRequest.of(request);
        Optional<RecordedExchange> recorded = cassette.nextRecorded(asked);
        return recorded.isPresent() ? replay(recorded.get()) : fetchAndRecord(request, asked);
    }

    @Override
    public void execute(HttpRequest request, ServerSentEventParser parser, ServerSentEventListener listener) {
        if (cassette.mode() == CassetteMode.OFF) {
            network.execute(request, parser, listener);
            return;
        }
        throw new UnsupportedOperationException("a cassette in mode " + cassette.mode() + " cannot record or replay"
                + " streaming requests (" + request.method() + " " + SanitizedUrl.of(request.url()).path()
                + "); use the non-streaming chat model");
    }

    private SuccessfulHttpResponse fetchAndRecord(HttpRequest request, CassetteRequest asked) {
        SuccessfulHttpResponse response;
        try {
            response = network.execute(request);
        } catch (HttpException error) {
            // the JDK client puts the response body in the message and drops the headers, so no content type is known
            cassette.record(asked, error.statusCode(), null, error.getMessage());
            throw error;
        }
        cassette.record(asked, response.statusCode(), response.contentType(), response.body());
        return response;
    }

    private static SuccessfulHttpResponse replay(RecordedExchange exchange) {
        if (!exchange.successful()) {
            throw new HttpException(exchange.status(), exchange.response());
        }
        Map<String, List<String>> headers = exchange.contentType() == null
                ? Map.of()
                : Map.of("Content-Type", List.of(exchange.contentType()));
        return SuccessfulHttpResponse.builder()
                .statusCode(exchange.status())
                .headers(headers)
                .body(exchange.response())
                .build();
    }
}
