package io.healbench.agent.llmstub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Scripts loaded from real files: what each condition and template does, and what a mistake in a script says. */
class LlmStubScriptTest {

    @TempDir
    Path dir;

    private static StubConversation conversation(String text, int turn, String lastToolResult, boolean tools) {
        return new StubConversation("m", text, turn, Optional.ofNullable(lastToolResult), tools, 40);
    }

    @Test
    void firstRuleWhoseConditionsAllHoldAnswers() {
        LlmStubScript script = ScriptFiles.load(dir, """
                latency_ms: 25
                rules:
                  - when: {contains: "KeyError", turn: 2}
                    reply: {text: "key error, turn two"}
                  - when: {contains: "KeyError", tools: false}
                    reply: {text: "key error, no tools"}
                  - when: {matches: 'line (\\d+)'}
                    reply: {text: "line {{match:1}} of turn {{turn}}"}
                default:
                  text: "default"
                """);

        assertEquals(Duration.ofMillis(25), script.latency());
        assertEquals("key error, turn two", script.reply(conversation("KeyError: 'a'", 2, null, true)).text());
        assertEquals("key error, no tools", script.reply(conversation("KeyError: 'a'", 1, null, false)).text());
        assertEquals("line 7 of turn 3", script.reply(conversation("KeyError at line 7", 3, null, true)).text());
        assertEquals("default", script.reply(conversation("KeyError", 1, null, true)).text());
    }

    @Test
    void lastToolResultConditionFailsWithoutAToolResult() {
        LlmStubScript script = ScriptFiles.load(dir, """
                rules:
                  - when: {last_tool_result_matches: "x = (\\\\w+)"}
                    reply: {text: "x is {{match:1}}; result was [{{last_tool_result}}]"}
                default: {text: "no result [{{last_tool_result}}]"}
                """);

        assertEquals("x is 5; result was [x = 5]", script.reply(conversation("x = 5", 2, "  x = 5\n", true)).text());
        assertEquals("no result []", script.reply(conversation("x = 5", 1, null, true)).text());
        assertEquals("no result [y = 1]", script.reply(conversation("y = 1", 2, "y = 1", true)).text());
    }

    @Test
    void toolCallArgumentsAreTemplatedAtAnyDepthAndCountAsOutput() {
        LlmStubScript script = ScriptFiles.load(dir, """
                rules:
                  - when: {matches: "name (\\\\w+)"}
                    reply:
                      tool_calls:
                        - name: probe
                          arguments: {code: "print({{match:1}})", opts: {turn: "{{turn}}", list: ["{{match:0}}", 3]}}
                default: {text: "none"}
                """);

        StubReply reply = script.reply(conversation("the name abc", 4, null, true));

        assertEquals(1, reply.toolCalls().size());
        String arguments = reply.toolCalls().get(0).arguments().toString();
        assertEquals("{\"code\":\"print(abc)\",\"opts\":{\"turn\":\"4\",\"list\":[\"name abc\",3]}}", arguments);
        assertEquals(StubFinish.TOOL_CALLS, reply.finish());
        assertNull(reply.text());
        assertEquals(new StubUsage(10, (arguments.length() + 3) / 4, 0), reply.usage());
    }

    @Test
    void usageIsEstimatedUnlessOverriddenCountByCount() {
        LlmStubScript script = ScriptFiles.load(dir, """
                rules:
                  - when: {contains: "override"}
                    reply: {text: "x", usage: {output_tokens: 99, cached_input_tokens: 3}, finish: length}
                default: {text: "ünï"}
                """);

        assertEquals(new StubUsage(10, 2, 0), script.reply(conversation("hi", 1, null, false)).usage());
        StubReply overridden = script.reply(conversation("override", 1, null, false));
        assertEquals(new StubUsage(10, 99, 3), overridden.usage());
        assertEquals(StubFinish.LENGTH, overridden.finish());
        assertEquals(new StubUsage(10, 1, 0), StubUsage.estimate(40, "", List.of()));
    }

    @Test
    void exampleScriptsAnswerAsTheirNamesSay() {
        Path examples = Path.of("..", "scripts", "llm-stub");
        StubConversation any = conversation("KeyError", 3, "x", true);

        StubReply neverHeals = LlmStubScript.load(examples.resolve("never-heals.yaml")).reply(any);
        StubReply malformed = LlmStubScript.load(examples.resolve("malformed.yaml")).reply(any);
        StubReply reraise = LlmStubScript.load(examples.resolve("reraise.yaml")).reply(any);

        assertEquals("probe", neverHeals.toolCalls().get(0).name());
        assertEquals("print('still looking')", neverHeals.toolCalls().get(0).arguments().path("code").asText());
        assertTrue(malformed.toolCalls().isEmpty());
        assertTrue(!malformed.text().isBlank() && !malformed.text().contains("```"), malformed.text());
        assertEquals("reraise", reraise.toolCalls().get(0).name());
        assertEquals("stub gives up", reraise.toolCalls().get(0).arguments().path("reason").asText());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            unknown template     | `rules: [{when: {contains: a}, reply: {text: "{{lst_tool_result}}"}}]\ndefault: {text: b}` | rules[0].reply.text: unknown template {{lst_tool_result}}
            template in args     | `default: {tool_calls: [{name: p, arguments: {a: {b: "{{x}}"}}}]}`                     | default.tool_calls[0].arguments.a.b: unknown template {{x}}
            missing default      | `rules: [{when: {contains: a}, reply: {text: b}}]`                                    | default: is required
            match without regex  | `rules: [{when: {contains: a}, reply: {text: "{{match:1}}"}}]\ndefault: {text: b}`      | rules[0].reply.text: {{match:1}} needs a 'matches' or 'last_tool_result_matches' regex
            group out of range   | `rules: [{when: {matches: "(a)"}, reply: {text: "{{match:2}}"}}]\ndefault: {text: b}`   | {{match:2}} refers to group 2 but the rule's regex has 1 group
            unknown field        | `rules: [{when: {contain: a}, reply: {text: b}}]\ndefault: {text: b}`                  | rules[0].when.contain: unknown field
            bad regex            | `rules: [{when: {matches: "(a"}, reply: {text: b}}]\ndefault: {text: b}`               | rules[0].when.matches: is not a valid regular expression
            empty reply          | `default: {finish: stop}`                                                              | default: needs 'text', 'tool_calls' or 'status'
            status not an error  | `default: {status: 200}`                                                               | default.status: must be an HTTP error status
            bad finish           | `default: {text: a, finish: done}`                                                     | default.finish: must be stop or length
            turn zero            | `rules: [{when: {turn: 0}, reply: {text: b}}]\ndefault: {text: b}`                     | rules[0].when.turn: must be a positive integer
            tools not boolean    | `rules: [{when: {tools: "yes"}, reply: {text: b}}]\ndefault: {text: b}`                | rules[0].when.tools: must be true or false
            negative latency     | `latency_ms: -1\ndefault: {text: b}`                                                   | latency_ms: must be a non-negative integer
            arguments not a map  | `default: {tool_calls: [{name: p, arguments: [1]}]}`                                   | default.tool_calls[0].arguments: must be a mapping
            tool without name    | `default: {tool_calls: [{arguments: {}}]}`                                             | default.tool_calls[0].name: is required
            duplicate key        | `default: {text: a}\ndefault: {text: b}`                                               | not valid YAML at line 2
            not YAML             | `default: [`                                                                           | not valid YAML
            not a mapping        | `- a`                                                                                  | must be a YAML mapping with 'rules' and 'default'
            """)
    void aBadScriptIsAClearErrorNamingFileAndPlace(String name, String yaml, String expected) {
        Path file = ScriptFiles.write(dir, yaml.replace("\\n", "\n"));

        LlmStubScriptException e = assertThrows(LlmStubScriptException.class, () -> LlmStubScript.load(file));

        assertTrue(e.getMessage().startsWith(file.toString()), e.getMessage());
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void aMissingScriptSaysSo() {
        LlmStubScriptException e = assertThrows(LlmStubScriptException.class,
                () -> LlmStubScript.load(dir.resolve("absent.yaml")));

        assertTrue(e.getMessage().contains("absent.yaml does not exist"), e.getMessage());
    }
}
