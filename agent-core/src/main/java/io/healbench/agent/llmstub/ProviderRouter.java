package io.healbench.agent.llmstub;

import com.sun.net.httpserver.Headers;
import java.util.List;
import java.util.Optional;

/** Which provider a request is for: by its path when the path is one the stub serves, else by its headers for the error's shape. */
final class ProviderRouter {

    private final OpenAiProtocol openAi = new OpenAiProtocol();
    private final AnthropicProtocol anthropic = new AnthropicProtocol();
    private final GeminiProtocol gemini = new GeminiProtocol();
    private final List<ProviderProtocol> protocols = List.of(openAi, anthropic, gemini);

    Optional<ProviderProtocol> serving(String path) {
        return protocols.stream().filter(protocol -> protocol.serves(path)).findFirst();
    }

    /** For an unknown path: the provider whose client the headers or the path prefix point to, OpenAI when nothing does. */
    ProviderProtocol likelyFor(String path, Headers headers) {
        if (headers.containsKey("x-api-key") || headers.containsKey("anthropic-version")) {
            return anthropic;
        }
        if (headers.containsKey("x-goog-api-key") || path.startsWith("/v1beta/")) {
            return gemini;
        }
        return openAi;
    }
}
