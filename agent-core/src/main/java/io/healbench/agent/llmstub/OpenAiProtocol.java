package io.healbench.agent.llmstub;

import static io.healbench.agent.llmstub.RequestFields.contentText;
import static io.healbench.agent.llmstub.RequestFields.object;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.Headers;
import java.time.Instant;

/** OpenAI chat completions: {@code POST /v1/chat/completions} (or {@code /chat/completions}), {@code Authorization: Bearer}. */
final class OpenAiProtocol implements ProviderProtocol {

    @Override
    public boolean serves(String path) {
        return ProviderProtocol.atEndpoint(path, "/chat/completions");
    }

    @Override
    public boolean authorized(Headers headers, String rawQuery) {
        String authorization = headers.getFirst("Authorization");
        return authorization != null && authorization.startsWith("Bearer ")
                && ProviderProtocol.present(authorization.substring("Bearer ".length()));
    }

    @Override
    public StubConversation read(JsonNode body, String path, int bodyBytes) {
        String model = RequestFields.requiredText(body, "model");
        RequestFields.refuseStreaming(body);
        JsonNode messages = RequestFields.requiredArray(body, "messages");
        StubConversation.Builder conversation = new StubConversation.Builder();
        for (int i = 0; i < messages.size(); i++) {
            String where = "messages[" + i + "]";
            JsonNode message = object(messages.get(i), where);
            String content = contentText(message.get("content"), where + ".content");
            switch (RequestFields.requiredText(message, "role")) {
                case "system", "developer", "user" -> conversation.text(content);
                case "assistant" -> conversation.assistantMessage().text(content);
                case "tool" -> conversation.toolResult(content);
                default -> throw new StubRequestException(where + ".role: must be system, developer, user, assistant or tool");
            }
        }
        return conversation.build(model, RequestFields.nonEmptyArray(body, "tools"), bodyBytes);
    }

    @Override
    public ObjectNode reply(StubReply reply, StubConversation conversation, long sequence) {
        ObjectNode root = StubJson.MAPPER.createObjectNode();
        root.put("id", "chatcmpl-stub-" + sequence);
        root.put("object", "chat.completion");
        root.put("created", Instant.now().getEpochSecond());
        root.put("model", conversation.model());
        ObjectNode choice = root.putArray("choices").addObject();
        choice.put("index", 0);
        ObjectNode message = choice.putObject("message");
        message.put("role", "assistant");
        message.put("content", reply.text());
        if (!reply.toolCalls().isEmpty()) {
            ArrayNode calls = message.putArray("tool_calls");
            for (int i = 0; i < reply.toolCalls().size(); i++) {
                StubToolCall call = reply.toolCalls().get(i);
                ObjectNode entry = calls.addObject();
                entry.put("id", "call_" + conversation.turn() + "_" + (i + 1));
                entry.put("type", "function");
                ObjectNode function = entry.putObject("function");
                function.put("name", call.name());
                function.put("arguments", call.arguments().toString());
            }
        }
        choice.putNull("logprobs");
        choice.put("finish_reason", switch (reply.finish()) {
            case STOP -> "stop";
            case LENGTH -> "length";
            case TOOL_CALLS -> "tool_calls";
        });
        StubUsage usage = reply.usage();
        ObjectNode usageNode = root.putObject("usage");
        usageNode.put("prompt_tokens", usage.inputTokens());
        usageNode.put("completion_tokens", usage.outputTokens());
        usageNode.put("total_tokens", usage.totalTokens());
        usageNode.putObject("prompt_tokens_details").put("cached_tokens", usage.cachedInputTokens());
        return root;
    }

    /** OpenAI's {@code {"error": {message, type, param, code}}}. */
    @Override
    public ObjectNode error(int status, String message) {
        ObjectNode root = StubJson.MAPPER.createObjectNode();
        ObjectNode error = root.putObject("error");
        error.put("message", message);
        error.put("type", status == 429 ? "requests" : status >= 500 ? "server_error" : "invalid_request_error");
        error.putNull("param");
        error.put("code", switch (status) {
            case 401 -> "invalid_api_key";
            case 404 -> "unknown_url";
            case 429 -> "rate_limit_exceeded";
            default -> null;
        });
        return root;
    }
}
