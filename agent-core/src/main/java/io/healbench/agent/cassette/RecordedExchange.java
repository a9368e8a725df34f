package io.healbench.agent.cassette;

/**
 * One line of a cassette file: a request, by its key and in the cassette's sanitized form, and the response it got.
 *
 * @param seq         the 0-based position of the exchange in the file
 * @param request     the canonical request body ({@link CanonicalBody})
 * @param contentType the response's content type, {@code null} when unknown (a non-2xx answer carries none)
 */
record RecordedExchange(String key, int seq, String method, String url, String request, int status,
        String contentType, String response) {

    /** Whether the exchange replays as a response rather than as an {@link dev.langchain4j.exception.HttpException}. */
    boolean successful() {
        // the test JdkHttpClient applies, so that a replayed error reaches the model exactly as the recorded one did
        return status >= 200 && status < 300;
    }
}
