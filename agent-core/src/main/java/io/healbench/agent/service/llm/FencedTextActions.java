package io.healbench.agent.service.llm;

import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Actions as text, for models without tool calling: exactly one fenced block per reply, its info string naming the
 * tool and its {@code key=value} arguments, its body carrying the tool's main text (the code, the reason or the
 * pattern). For example:
 * <pre>
 * ```heal resume=skip
 * total = 0
 * ```
 * </pre>
 */
final class FencedTextActions implements ActionFormat {

    private static final Pattern BLOCK = Pattern.compile("(?ms)^```([A-Za-z_]+)([^\\n]*)\\n(.*?)^```[ \\t]*$");
    private static final Pattern ARGUMENT = Pattern.compile("([a-z_]+)=(\"([^\"]*)\"|\\S+)");

    @Override
    public List<ToolSpecification> specifications(List<String> tools) {
        return List.of();
    }

    @Override
    public String instructions(List<String> tools) {
        StringBuilder list = new StringBuilder();
        for (ActionCatalog.Tool tool : ActionCatalog.tools(tools)) {
            list.append("- `").append(tool.name());
            tool.parameters().stream().filter(p -> tool.bodyParameter().map(b -> b != p).orElse(true))
                    .forEach(p -> list.append(' ').append(p.name()).append(p.required() ? "=..." : "=...(optional)"));
            list.append("`: ").append(tool.description());
            tool.bodyParameter().ifPresent(body -> list.append(" The block's body is the ").append(body.name()).append('.'));
            list.append('\n');
        }
        return Prompts.render("actions-text", Map.of("actions", list.toString().strip()));
    }

    @Override
    public List<Parsed> parse(AiMessage reply, List<String> tools, int step) {
        String text = reply.text() == null ? "" : reply.text();
        List<MatchResult> blocks = new ArrayList<>();
        Matcher matcher = BLOCK.matcher(text);
        while (matcher.find()) {
            if (tools.contains(matcher.group(1))) {
                blocks.add(matcher.toMatchResult());
            }
        }
        if (blocks.size() != 1) {
            return List.of(new Parsed(null, "", "", (blocks.isEmpty() ? "your reply has no action block"
                    : "your reply has " + blocks.size() + " action blocks") + ": write exactly one fenced block whose "
                    + "info string is one of " + String.join(", ", tools)));
        }
        MatchResult block = blocks.get(0);
        ActionCatalog.Tool tool = ActionCatalog.tools(List.of(block.group(1))).get(0);
        Map<String, Object> arguments = new LinkedHashMap<>();
        Matcher argument = ARGUMENT.matcher(block.group(2));
        while (argument.find()) {
            arguments.put(argument.group(1), argument.group(3) != null ? argument.group(3) : argument.group(2));
        }
        String body = block.group(3);
        if (body.endsWith("\n")) {
            body = body.substring(0, body.length() - 1);
        }
        String bodyText = body;
        tool.bodyParameter().ifPresent(parameter -> arguments.put(parameter.name(), bodyText));
        String callId = "text-" + step;
        ActionCatalog.Checked checked = ActionCatalog.check(new Action(tool.name(), callId, arguments), tools);
        return List.of(new Parsed(checked.action(), callId, tool.name(), checked.error()));
    }

    @Override
    public ChatMessage observation(Parsed action, String content) {
        return UserMessage.from(action.toolName().isEmpty() ? content
                : "Observation (" + action.toolName() + "):\n" + content);
    }
}
