package io.healbench.agent.llmstub;

import static io.healbench.agent.llmstub.RequestFields.contentText;
import static io.healbench.agent.llmstub.RequestFields.object;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.Headers;

/** Anthropic messages: {@code POST /v1/messages} (or {@code /messages}), {@code x-api-key}. */
final class AnthropicProtocol implements ProviderProtocol {

    @Override
    public boolean serves(String path) {
        return ProviderProtocol.atEndpoint(path, "/messages");
    }

    @Override
    public boolean authorized(Headers headers, String rawQuery) {
        return ProviderProtocol.present(headers.getFirst("x-api-key"));
    }

    @Override
    public StubConversation read(JsonNode body, String path, int bodyBytes) {
        String model = RequestFields.requiredText(body, "model");
        JsonNode maxTokens = body.get("max_tokens");
        if (maxTokens == null || !maxTokens.isIntegralNumber() || maxTokens.asLong() < 1) {
            throw new StubRequestException("max_tokens: a positive integer is required");
        }
        RequestFields.refuseStreaming(body);
        StubConversation.Builder conversation = new StubConversation.Builder();
        conversation.text(contentText(body.get("system"), "system"));
        JsonNode messages = RequestFields.requiredArray(body, "messages");
        for (int i = 0; i < messages.size(); i++) {
            String where = "messages[" + i + "]";
            JsonNode message = object(messages.get(i), where);
            switch (RequestFields.requiredText(message, "role")) {
                case "user" -> readContent(message.get("content"), where + ".content", conversation);
                case "assistant" -> readContent(message.get("content"), where + ".content", conversation.assistantMessage());
                default -> throw new StubRequestException(where + ".role: must be user or assistant");
            }
        }
        return conversation.build(model, RequestFields.nonEmptyArray(body, "tools"), bodyBytes);
    }

    /** Text blocks and tool results count, in order; tool_use blocks are the model's own calls and add no text. */
    private static void readContent(JsonNode content, String where, StubConversation.Builder conversation) {
        if (content == null || !content.isArray()) {
            conversation.text(contentText(content, where));
            return;
        }
        for (int i = 0; i < content.size(); i++) {
            String at = where + "[" + i + "]";
            JsonNode block = object(content.get(i), at);
            switch (block.path("type").asText()) {
                case "text" -> conversation.text(block.path("text").asText());
                case "tool_result" -> conversation.toolResult(contentText(block.get("content"), at + ".content"));
                default -> {
                    // tool_use, images, thinking: nothing a script matches on
                }
            }
        }
    }

    @Override
    public ObjectNode reply(StubReply reply, StubConversation conversation, long sequence) {
        ObjectNode root = StubJson.MAPPER.createObjectNode();
        root.put("id", "msg_stub_" + sequence);
        root.put("type", "message");
        root.put("role", "assistant");
        root.put("model", conversation.model());
        ArrayNode content = root.putArray("content");
        if (reply.text() != null) {
            content.addObject().put("type", "text").put("text", reply.text());
        }
        for (int i = 0; i < reply.toolCalls().size(); i++) {
            StubToolCall call = reply.toolCalls().get(i);
            ObjectNode block = content.addObject();
            block.put("type", "tool_use");
            block.put("id", "toolu_" + conversation.turn() + "_" + (i + 1));
            block.put("name", call.name());
            block.set("input", call.arguments());
        }
        root.put("stop_reason", switch (reply.finish()) {
            case STOP -> "end_turn";
            case LENGTH -> "max_tokens";
            case TOOL_CALLS -> "tool_use";
        });
        root.putNull("stop_sequence");
        StubUsage usage = reply.usage();
        ObjectNode usageNode = root.putObject("usage");
        usageNode.put("input_tokens", usage.inputTokens());
        usageNode.put("output_tokens", usage.outputTokens());
        usageNode.put("cache_read_input_tokens", usage.cachedInputTokens());
        usageNode.put("cache_creation_input_tokens", 0);
        return root;
    }

    /** Anthropic's {@code {"type": "error", "error": {type, message}}}. */
    @Override
    public ObjectNode error(int status, String message) {
        ObjectNode root = StubJson.MAPPER.createObjectNode();
        root.put("type", "error");
        ObjectNode error = root.putObject("error");
        error.put("type", switch (status) {
            case 401 -> "authentication_error";
            case 403 -> "permission_error";
            case 404 -> "not_found_error";
            case 413 -> "request_too_large";
            case 429 -> "rate_limit_error";
            case 529 -> "overloaded_error";
            default -> status >= 500 ? "api_error" : "invalid_request_error";
        });
        error.put("message", message);
        return root;
    }
}
