package io.healbench.agent.llmstub;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.Headers;

/** One provider's wire protocol: which paths it serves, its auth header, how its requests read and its replies and errors look. */
interface ProviderProtocol {

    boolean serves(String path);

    /** Whether the request carries the provider's credential; only its presence is checked, its value is never kept. */
    boolean authorized(Headers headers, String rawQuery);

    /** @throws StubRequestException when the body is not a request of this provider */
    StubConversation read(JsonNode body, String path, int bodyBytes);

    /** @param sequence the server's count of replies so far, for a unique response id */
    ObjectNode reply(StubReply reply, StubConversation conversation, long sequence);

    ObjectNode error(int status, String message);

    /** Whether {@code path} is {@code endpoint}, with or without the {@code /v1} that a client's base URL may carry. */
    static boolean atEndpoint(String path, String endpoint) {
        return path.equals("/v1" + endpoint) || path.equals(endpoint);
    }

    /** Whether a credential is there: a header (or part of one) that is set and not blank. */
    static boolean present(String credential) {
        return credential != null && !credential.isBlank();
    }
}
