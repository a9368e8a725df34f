package io.healbench.agent.llmstub;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A script for the llm-stub server: it decides every reply the stub gives, so that agents can be run against
 * real provider clients without a provider. A YAML file:
 *
 * <pre>{@code
 * latency_ms: 0          # waited before every reply (the server's latency override replaces it)
 * rules:                 # the first rule whose `when` holds answers; every condition given must hold
 *   - when:
 *       contains: "KeyError"               # the request's whole text contains this literal
 *       matches: "regex"                   # Matcher.find() over the same text
 *       turn: 2                            # 1 + the number of assistant messages in the request
 *       last_tool_result_matches: "regex"  # find() over the last tool result; fails when there is none
 *       tools: true                        # true: the request offers tools; false: it offers none
 *     reply:
 *       text: "optional assistant text"    # may hold templates
 *       tool_calls:                        # each becomes a native tool call of the provider
 *         - name: probe
 *           arguments: {code: "print(repr(x))", timeout_s: 5}   # strings may hold templates
 *       finish: stop                       # stop | length; default: tool calls when there are any, else stop
 *       usage: {input_tokens: 10, output_tokens: 5, cached_input_tokens: 0}  # each count given replaces the estimate
 *       status: 500                        # answer with this HTTP error (400..599) in the provider's shape instead
 * default:               # the reply when no rule matches (required); same fields as a reply
 *   text: "..."
 * }</pre>
 *
 * The whole text is the system text, every message's text and every tool result, in order, one per line.
 * Templates: {@code {{last_tool_result}}} (trimmed; empty without one), {@code {{turn}}}, {@code {{match:N}}}
 * (group N of {@code matches}, or of {@code last_tool_result_matches} when that is the only regex). Unknown
 * fields and templates are refused when the script loads. Without a {@code usage} override, input tokens are
 * the request body's UTF-8 bytes / 4 and output tokens the reply text's plus the tool-call arguments' bytes / 4
 * (at least 1), both rounded up; cached input tokens are 0. {@code scripts/llm-stub/README.md} has examples.
 */
public final class LlmStubScript {

    private final Path file;
    private final Duration latency;
    private final List<ScriptRule> rules;
    private final ReplyTemplate defaultReply;

    LlmStubScript(Path file, Duration latency, List<ScriptRule> rules, ReplyTemplate defaultReply) {
        this.file = file;
        this.latency = latency;
        this.rules = List.copyOf(rules);
        this.defaultReply = defaultReply;
    }

    /** Reads and checks a script; a user's mistake is an {@link LlmStubScriptException} naming the file and the problem. */
    public static LlmStubScript load(Path file) {
        return ScriptParser.parse(file);
    }

    public Path file() {
        return file;
    }

    /** The script's {@code latency_ms}. */
    public Duration latency() {
        return latency;
    }

    /** The first matching rule's reply, else the default; deterministic in the conversation. */
    StubReply reply(StubConversation conversation) {
        for (ScriptRule rule : rules) {
            Optional<List<String>> groups = rule.when().holds(conversation);
            if (groups.isPresent()) {
                return rule.reply().render(conversation, groups.get());
            }
        }
        return defaultReply.render(conversation, List.of());
    }
}
