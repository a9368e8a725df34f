package io.healbench.agent.service.llm;

import dev.langchain4j.http.client.HttpClientBuilder;
import dev.langchain4j.model.anthropic.AnthropicChatModel;
import dev.langchain4j.model.anthropic.AnthropicTokenUsage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.googleai.GoogleAiGeminiChatModel;
import dev.langchain4j.model.googleai.GoogleAiGeminiTokenUsage;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiTokenUsage;
import dev.langchain4j.model.output.TokenUsage;
import io.healbench.common.backbone.Backbone;
import java.util.function.Function;

/**
 * Builds LangChain4j's low-level {@link ChatModel} for a backbone (we own the loop, so no AiServices), over the HTTP
 * client we give it (the cassette's, or the JDK's), and reads the provider's usage fields into one shape.
 */
public final class ChatModels {

    /** Sent where a local server takes any key, so the client's "key required" check passes. */
    static final String PLACEHOLDER_KEY = "not-needed";

    private ChatModels() {
    }

    /**
     * The model, with the key read from the backbone's variable through {@code environment}; a required key that is
     * unset fails here, before any session starts, naming the variable (never a value).
     */
    public static ChatModel build(Backbone backbone, HttpClientBuilder http, Function<String, String> environment) {
        String key = environment.apply(backbone.apiKeyEnv());
        if (key == null || key.isBlank()) {
            if (backbone.apiKeyRequired()) {
                throw new IllegalStateException("backbone " + backbone.name() + " needs its API key in $"
                        + backbone.apiKeyEnv() + ", which is not set");
            }
            key = PLACEHOLDER_KEY;
        }
        http.connectTimeout(backbone.timeout()).readTimeout(backbone.timeout());
        return switch (backbone.provider()) {
            case OPENAI -> OpenAiChatModel.builder()
                    .httpClientBuilder(http)
                    .baseUrl(backbone.baseUrl())
                    .apiKey(key)
                    .modelName(backbone.model())
                    .temperature(backbone.temperature())
                    .seed(backbone.seed().orElse(null))
                    .maxCompletionTokens(backbone.maxOutputTokens())
                    .timeout(backbone.timeout())
                    .maxRetries(backbone.maxRetries())
                    .build();
            case ANTHROPIC -> AnthropicChatModel.builder()
                    .httpClientBuilder(http)
                    .baseUrl(backbone.baseUrl())
                    .apiKey(key)
                    .modelName(backbone.model())
                    .temperature(backbone.temperature())
                    .maxTokens(backbone.maxOutputTokens())
                    .timeout(backbone.timeout())
                    .maxRetries(backbone.maxRetries())
                    .build();
            case GEMINI -> GoogleAiGeminiChatModel.builder()
                    .httpClientBuilder(http)
                    .baseUrl(backbone.baseUrl())
                    .apiKey(key)
                    .modelName(backbone.model())
                    .temperature(backbone.temperature())
                    .seed(backbone.seed().orElse(null))
                    .maxOutputTokens(backbone.maxOutputTokens())
                    .timeout(backbone.timeout())
                    .maxRetries(backbone.maxRetries())
                    .build();
        };
    }

    /**
     * Tokens as the provider reported them, with {@code input} counting cached prompt tokens too: OpenAI and Gemini
     * report it so; Anthropic reports cache reads and writes apart from {@code input_tokens}, so they are added.
     */
    public static CallUsage usage(TokenUsage reported, Backbone backbone) {
        if (reported == null) {
            return new CallUsage(0, 0, 0, 0, backbone.priced());
        }
        long input = value(reported.inputTokenCount());
        long cached = 0;
        if (reported instanceof OpenAiTokenUsage openAi && openAi.inputTokensDetails() != null) {
            cached = value(openAi.inputTokensDetails().cachedTokens());
        } else if (reported instanceof AnthropicTokenUsage anthropic) {
            cached = value(anthropic.cacheReadInputTokens());
            input += cached + value(anthropic.cacheCreationInputTokens());
        } else if (reported instanceof GoogleAiGeminiTokenUsage gemini) {
            cached = value(gemini.cachedContentTokenCount());
        }
        long output = value(reported.outputTokenCount());
        long allInput = input;
        long cachedInput = cached;
        double cost = backbone.prices().map(p -> p.cost(allInput, cachedInput, output)).orElse(0.0);
        return new CallUsage(allInput, cachedInput, output, cost, backbone.priced());
    }

    private static long value(Integer count) {
        return count == null ? 0 : count;
    }
}
