package io.healbench.agent.llmstub;

import com.fasterxml.jackson.databind.JsonNode;

/** Reading request fields the way providers check them: a missing or mistyped required field is a 400 naming the field. */
final class RequestFields {

    private RequestFields() {
    }

    static String requiredText(JsonNode parent, String field) {
        JsonNode node = parent.get(field);
        if (node == null || !node.isTextual() || node.asText().isBlank()) {
            throw new StubRequestException(field + ": a non-empty string is required");
        }
        return node.asText();
    }

    static JsonNode requiredArray(JsonNode parent, String field) {
        JsonNode node = parent.get(field);
        if (node == null || !node.isArray() || node.isEmpty()) {
            throw new StubRequestException(field + ": a non-empty array is required");
        }
        return node;
    }

    static JsonNode object(JsonNode node, String where) {
        if (!node.isObject()) {
            throw new StubRequestException(where + ": must be an object");
        }
        return node;
    }

    /** Whether {@code field} is a non-empty array: providers treat an empty tool list as no tools. */
    static boolean nonEmptyArray(JsonNode parent, String field) {
        JsonNode node = parent.get(field);
        return node != null && node.isArray() && !node.isEmpty();
    }

    /** The stub answers whole replies only; a streaming request would otherwise get a body its client cannot read. */
    static void refuseStreaming(JsonNode body) {
        if (body.path("stream").asBoolean(false)) {
            throw new StubRequestException("stream: llm-stub answers non-streaming requests only");
        }
    }

    /**
     * Text of a content value as OpenAI and Anthropic both send it: a string, or an array of blocks whose
     * {@code type: text} blocks count (joined by newlines) and whose other blocks (images, tool calls) add no text.
     */
    static String contentText(JsonNode content, String where) {
        if (content == null || content.isNull()) {
            return "";
        }
        if (content.isTextual()) {
            return content.asText();
        }
        if (!content.isArray()) {
            throw new StubRequestException(where + ": must be a string or an array of content blocks");
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < content.size(); i++) {
            JsonNode block = object(content.get(i), where + "[" + i + "]");
            if ("text".equals(block.path("type").asText())) {
                if (!text.isEmpty()) {
                    text.append('\n');
                }
                text.append(block.path("text").asText());
            }
        }
        return text.toString();
    }
}
