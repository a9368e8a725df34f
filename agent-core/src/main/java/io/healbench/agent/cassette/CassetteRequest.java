package io.healbench.agent.cassette;

import dev.langchain4j.http.client.HttpRequest;

/**
 * A request as a cassette sees it: its method, its {@link SanitizedUrl}, its {@link CanonicalBody} and the
 * {@link ExchangeKey} over them. Its headers are left out on purpose: they carry the API keys, and nothing a cassette
 * keeps may hold one.
 */
record CassetteRequest(String method, SanitizedUrl url, String body, String key) {

    static CassetteRequest of(HttpRequest request) {
        String method = request.method().name();
        SanitizedUrl url = SanitizedUrl.of(request.url());
        String body = CanonicalBody.of(request.body());
        return new CassetteRequest(method, url, body, ExchangeKey.of(method, url.path(), body));
    }

    /** How messages name the request: {@code POST /v1/chat/completions}. */
    String describe() {
        return method + " " + url.path();
    }
}
