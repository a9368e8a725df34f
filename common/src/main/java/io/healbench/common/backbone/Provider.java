package io.healbench.common.backbone;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The wire protocol a backbone speaks. */
public enum Provider {
    /** OpenAI chat completions, at any base URL (OpenAI, vLLM, Ollama, llama.cpp, other compatible servers). */
    OPENAI,
    /** Anthropic messages. */
    ANTHROPIC,
    /** Google AI Gemini generateContent. */
    GEMINI;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Provider parse(String text) {
        for (Provider provider : values()) {
            if (provider.wireName().equals(text)) {
                return provider;
            }
        }
        throw new BackboneException("unknown provider '" + text + "'; providers are: "
                + Arrays.stream(values()).map(Provider::wireName).collect(Collectors.joining(", ")));
    }
}
