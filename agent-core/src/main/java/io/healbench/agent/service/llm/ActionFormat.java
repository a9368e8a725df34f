package io.healbench.agent.service.llm;

import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import java.util.List;

/**
 * How an agent's replies carry actions: native tool calls ({@link NativeToolCalls}) or one fenced text block per turn
 * ({@link FencedTextActions}, for models without tool calling). The loop is the same either way.
 */
interface ActionFormat {

    /** The tools as the request declares them (none for text actions, which the system prompt describes). */
    List<ToolSpecification> specifications(List<String> tools);

    /** How the system prompt tells the model to act. */
    String instructions(List<String> tools);

    /**
     * The actions of one reply, each with the error that makes it unusable (empty when fine). No usable action at
     * all is one item with a null action and the error.
     */
    List<Parsed> parse(AiMessage reply, List<String> tools, int step);

    /** What the model reads back for one action's result. */
    ChatMessage observation(Parsed action, String content);

    /** One parsed action, or (with {@code action} null) a reply that holds none; {@code error} empty when usable. */
    record Parsed(Action action, String callId, String toolName, String error) {
        boolean usable() {
            return error.isEmpty();
        }
    }
}
