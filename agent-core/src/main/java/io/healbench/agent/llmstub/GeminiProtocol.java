package io.healbench.agent.llmstub;

import static io.healbench.agent.llmstub.RequestFields.object;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.Headers;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Gemini generateContent: {@code POST /v1beta/models/{model}:generateContent} (or without {@code /v1beta}),
 * {@code x-goog-api-key} or a {@code key} query parameter. The model is named by the path, not the body.
 */
final class GeminiProtocol implements ProviderProtocol {

    private static final Pattern GENERATE_CONTENT = Pattern.compile("(?:/v1beta)?/models/([^/:]+):generateContent");
    private static final Pattern KEY_PARAMETER = Pattern.compile("(?:^|&)key=[^&]+");

    @Override
    public boolean serves(String path) {
        return GENERATE_CONTENT.matcher(path).matches();
    }

    @Override
    public boolean authorized(Headers headers, String rawQuery) {
        return ProviderProtocol.present(headers.getFirst("x-goog-api-key"))
                || (rawQuery != null && KEY_PARAMETER.matcher(rawQuery).find());
    }

    @Override
    public StubConversation read(JsonNode body, String path, int bodyBytes) {
        Matcher route = GENERATE_CONTENT.matcher(path);
        if (!route.matches()) {
            throw new IllegalStateException("not a generateContent path: " + path);
        }
        StubConversation.Builder conversation = new StubConversation.Builder();
        JsonNode system = body.get("systemInstruction");
        if (system != null && !system.isNull()) {
            readParts(object(system, "systemInstruction"), "systemInstruction", conversation);
        }
        JsonNode contents = RequestFields.requiredArray(body, "contents");
        for (int i = 0; i < contents.size(); i++) {
            String where = "contents[" + i + "]";
            JsonNode content = object(contents.get(i), where);
            if ("model".equals(content.path("role").asText())) {
                conversation.assistantMessage();
            }
            readParts(content, where, conversation);
        }
        return conversation.build(route.group(1), offersFunctions(body), bodyBytes);
    }

    /** Text parts and function responses count, in order; function calls are the model's own and add no text. */
    private static void readParts(JsonNode content, String where, StubConversation.Builder conversation) {
        JsonNode parts = content.path("parts");
        for (int i = 0; i < parts.size(); i++) {
            JsonNode part = object(parts.get(i), where + ".parts[" + i + "]");
            if (part.has("text")) {
                conversation.text(part.path("text").asText());
            } else if (part.has("functionResponse")) {
                conversation.toolResult(functionResponseText(part.get("functionResponse").path("response")));
            }
        }
    }

    /** LangChain4j sends a tool's result as {@code {"response": text}}; any other response object counts as its JSON. */
    private static String functionResponseText(JsonNode response) {
        JsonNode text = response.get("response");
        if (response.size() == 1 && text != null && text.isTextual()) {
            return text.asText();
        }
        return response.isMissingNode() ? "" : response.toString();
    }

    private static boolean offersFunctions(JsonNode body) {
        for (JsonNode tool : body.path("tools")) {
            if (RequestFields.nonEmptyArray(tool, "functionDeclarations")) {
                return true;
            }
        }
        return false;
    }

    @Override
    public ObjectNode reply(StubReply reply, StubConversation conversation, long sequence) {
        ObjectNode root = StubJson.MAPPER.createObjectNode();
        ObjectNode candidate = root.putArray("candidates").addObject();
        ObjectNode content = candidate.putObject("content");
        content.put("role", "model");
        ArrayNode parts = content.putArray("parts");
        if (reply.text() != null) {
            parts.addObject().put("text", reply.text());
        }
        for (int i = 0; i < reply.toolCalls().size(); i++) {
            StubToolCall call = reply.toolCalls().get(i);
            ObjectNode functionCall = parts.addObject().putObject("functionCall");
            functionCall.put("id", "call_" + conversation.turn() + "_" + (i + 1));
            functionCall.put("name", call.name());
            functionCall.set("args", call.arguments());
        }
        // Gemini ends a turn with function calls as STOP too; clients tell tool calls by the parts.
        candidate.put("finishReason", reply.finish() == StubFinish.LENGTH ? "MAX_TOKENS" : "STOP");
        candidate.put("index", 0);
        StubUsage usage = reply.usage();
        ObjectNode usageNode = root.putObject("usageMetadata");
        usageNode.put("promptTokenCount", usage.inputTokens());
        usageNode.put("candidatesTokenCount", usage.outputTokens());
        usageNode.put("totalTokenCount", usage.totalTokens());
        usageNode.put("cachedContentTokenCount", usage.cachedInputTokens());
        root.put("modelVersion", conversation.model());
        root.put("responseId", "stub-" + sequence);
        return root;
    }

    /** Google's {@code {"error": {code, message, status}}}. */
    @Override
    public ObjectNode error(int status, String message) {
        ObjectNode root = StubJson.MAPPER.createObjectNode();
        ObjectNode error = root.putObject("error");
        error.put("code", status);
        error.put("message", message);
        error.put("status", switch (status) {
            case 401 -> "UNAUTHENTICATED";
            case 403 -> "PERMISSION_DENIED";
            case 404 -> "NOT_FOUND";
            case 429 -> "RESOURCE_EXHAUSTED";
            case 503 -> "UNAVAILABLE";
            case 504 -> "DEADLINE_EXCEEDED";
            default -> status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT";
        });
        return root;
    }
}
