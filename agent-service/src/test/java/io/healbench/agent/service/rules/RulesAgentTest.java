package io.healbench.agent.service.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.agent.service.AgentDecision;
import io.healbench.agent.service.AgentDecision.Heal;
import io.healbench.agent.service.AgentDecision.Reraise;
import io.healbench.agent.service.CrashObservation;
import io.healbench.agent.service.HealPoint;
import io.healbench.agent.service.HealResume;
import io.healbench.agent.service.ObservedLocal;
import io.healbench.agent.service.ObservedStatement;
import io.healbench.agent.service.RejectedHeal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RulesAgentTest {

    private final RulesAgent agent = new RulesAgent();

    /** A crash as the runtime reports it; locals are "name:type" pairs (repr is irrelevant to the rules). */
    private static CrashObservation crash(String type, String message, String kind, String source,
            List<String> targets, boolean inFunction, String... locals) {
        List<ObservedLocal> observed = Arrays.stream(locals)
                .map(pair -> pair.split(":", 2))
                .map(pair -> new ObservedLocal(pair[0], pair[1], "<" + pair[1] + ">"))
                .toList();
        return new CrashObservation(1, type, message, new ObservedStatement(source, kind, targets, 42), observed,
                inFunction);
    }

    private static Arguments heal(String name, CrashObservation crash, String code, HealResume resume) {
        return Arguments.of(name, crash, new Heal(code, resume));
    }

    private static Arguments reraise(String name, CrashObservation crash) {
        return Arguments.of(name, crash, null);
    }

    static Stream<Arguments> firstDecisions() {
        return Stream.of(
                // KeyError
                heal("subscript of a local dict becomes .get",
                        crash("KeyError", "'x'", "assign", "v = d[k]", List.of("v"), true, "d:dict", "k:str"),
                        "v = d.get(k)", HealResume.SKIP),
                heal("subscript through an attribute path of a local",
                        crash("KeyError", "'name'", "assign", "value = self.cache[name]", List.of("value"), true,
                                "self:Registry", "name:str"),
                        "value = self.cache.get(name)", HealResume.SKIP),
                heal("tuple key keeps its tuple",
                        crash("KeyError", "(1, 2)", "assign", "cell = grid[row, col]", List.of("cell"), true,
                                "grid:dict", "row:int", "col:int"),
                        "cell = grid.get((row, col))", HealResume.SKIP),
                heal("string key holding a bracket",
                        crash("KeyError", "']'", "assign", "c = closers[\"]\"]", List.of("c"), true,
                                "closers:OrderedDict"),
                        "c = closers.get(\"]\")", HealResume.SKIP),
                heal("chained subscript is not rewritten",
                        crash("KeyError", "'b'", "assign", "x = d[a][b]", List.of("x"), true, "d:dict"),
                        "x = None", HealResume.SKIP),
                heal("subscript of a list-typed local is not a mapping",
                        crash("KeyError", "'k'", "assign", "x = items[k]", List.of("x"), true, "items:list"),
                        "x = None", HealResume.SKIP),
                heal("mapping not among the locals (a global)",
                        crash("KeyError", "'k'", "assign", "x = REGISTRY[k]", List.of("x"), true, "k:str"),
                        "x = None", HealResume.SKIP),
                heal("KeyError inside a larger expression",
                        crash("KeyError", "'k'", "assign", "total = counts[k] + 1", List.of("total"), true,
                                "counts:dict"),
                        "total = None", HealResume.SKIP),
                reraise("assignment to a subscript binds no plain name",
                        crash("KeyError", "Fraction(1, 3)", "assign", "partials[d] = partials[d] + n", List.of(),
                                true, "partials:dict", "d:int", "n:int")),
                heal("KeyError in a return",
                        crash("KeyError", "'k'", "return", "return d[k]", List.of(), true, "d:dict"),
                        "_return_ = None", HealResume.RETURN),
                heal("KeyError in an expression statement",
                        crash("KeyError", "'k'", "expr", "print(d[k])", List.of(), true, "d:dict"),
                        "pass", HealResume.SKIP),
                reraise("KeyError in a del statement",
                        crash("KeyError", "'k'", "delete", "del d[k]", List.of(), true, "d:dict")),
                // AttributeError
                heal("None attribute in a tuple assignment binds every target",
                        crash("AttributeError", "'NoneType' object has no attribute 'group'", "assign",
                                "attrname, rest, attrvalue = m.group(1, 2, 3)",
                                List.of("attrname", "rest", "attrvalue"), true, "m:NoneType", "k:int"),
                        "attrname = None\nrest = None\nattrvalue = None", HealResume.SKIP),
                heal("None attribute in an expression statement is skipped",
                        crash("AttributeError", "'NoneType' object has no attribute 'close'", "expr",
                                "self.stream.close()", List.of(), true, "self:Reader"),
                        "pass", HealResume.SKIP),
                reraise("attribute missing on a real object",
                        crash("AttributeError", "'str' object has no attribute 'decode'", "assign",
                                "text = data.decode()", List.of("text"), true, "data:str")),
                // ZeroDivisionError
                heal("true division is guarded by its divisor, float zero",
                        crash("ZeroDivisionError", "float division by zero", "assign", "s = rangec / sumc",
                                List.of("s"), true, "rangec:float", "sumc:float", "l:float"),
                        "s = rangec / sumc if sumc else 0.0", HealResume.SKIP),
                heal("parenthesized divisor",
                        crash("ZeroDivisionError", "float division by zero", "assign",
                                "s = rangec / (2.0-maxc-minc)", List.of("s"), true, "rangec:float"),
                        "s = rangec / (2.0-maxc-minc) if (2.0-maxc-minc) else 0.0", HealResume.SKIP),
                heal("floor division of ints keeps an int zero",
                        crash("ZeroDivisionError", "integer division or modulo by zero", "assign",
                                "per_page = total // pages", List.of("per_page"), true, "total:int", "pages:int"),
                        "per_page = total // pages if pages else 0", HealResume.SKIP),
                heal("modulo with a float operand gets a float zero",
                        crash("ZeroDivisionError", "float modulo", "assign", "r = angle % period", List.of("r"),
                                true, "angle:float", "period:int"),
                        "r = angle % period if period else 0.0", HealResume.SKIP),
                heal("division not readable from the source binds zero",
                        crash("ZeroDivisionError", "integer division or modulo by zero", "assign",
                                "q, r = divmod(x, y)", List.of("q", "r"), true, "x:int", "y:int"),
                        "q = 0\nr = 0", HealResume.SKIP),
                heal("division in a return returns zero",
                        crash("ZeroDivisionError", "division by zero", "return", "return hits / total",
                                List.of(), true, "hits:int", "total:int"),
                        "_return_ = 0", HealResume.RETURN),
                heal("augmented assignment is skipped, keeping the accumulator",
                        crash("ZeroDivisionError", "division by zero", "augassign", "acc += x / n",
                                List.of("acc"), true, "acc:float", "x:float", "n:int"),
                        "pass", HealResume.SKIP),
                // TypeError / ValueError / IndexError
                heal("TypeError with an unbound target binds None",
                        crash("TypeError", "'str' object cannot be interpreted as an integer", "assign",
                                "g = math.gcd(numerator, denominator)", List.of("g"), true, "numerator:int",
                                "denominator:str"),
                        "g = None", HealResume.SKIP),
                heal("ValueError with a bound target keeps its value",
                        crash("ValueError", "invalid literal for int() with base 10: 'x'", "assign", "n = int(n)",
                                List.of("n"), true, "n:str"),
                        "pass", HealResume.SKIP),
                heal("only the unbound targets are bound",
                        crash("TypeError", "cannot unpack non-iterable NoneType object", "assign", "a, b = pair",
                                List.of("a", "b"), true, "a:int", "pair:NoneType"),
                        "b = None", HealResume.SKIP),
                heal("IndexError in a return returns None",
                        crash("IndexError", "string index out of range", "return",
                                "return shortopts[i+1] == ':'", List.of(), true, "opt:str", "shortopts:str",
                                "i:int"),
                        "_return_ = None", HealResume.RETURN),
                reraise("a return outside a function cannot return",
                        crash("IndexError", "list index out of range", "return", "return xs[0]", List.of(),
                                false)),
                heal("IndexError in an expression statement",
                        crash("IndexError", "list index out of range", "expr", "out.append(xs[3])", List.of(), true,
                                "out:list", "xs:list"),
                        "pass", HealResume.SKIP),
                reraise("an annotated assignment to an attribute",
                        crash("TypeError", "unsupported operand", "annassign", "self.size: int = a + b", List.of(),
                                true, "self:Box")),
                heal("annotated assignment to a name",
                        crash("TypeError", "unsupported operand", "annassign", "size: int = a + b", List.of("size"),
                                true, "a:int", "b:str"),
                        "size = None", HealResume.SKIP),
                // outside the rules
                reraise("no rule for RecursionError",
                        crash("RecursionError", "maximum recursion depth exceeded", "assign", "x = f(x)",
                                List.of("x"), true, "x:int")),
                reraise("no rule for an OSError",
                        crash("FileNotFoundError", "[Errno 2] No such file", "expr", "open(p)", List.of(), true)),
                reraise("no rule for a for statement",
                        crash("TypeError", "'NoneType' object is not iterable", "for", "for x in xs:", List.of("x"),
                                true, "xs:NoneType")),
                reraise("no rule for a raise statement",
                        crash("ValueError", "bad", "raise", "raise ValueError('bad')", List.of(), true)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("firstDecisions")
    void firstDecision(String name, CrashObservation crash, Heal expected) {
        AgentDecision decision = agent.decide(new HealPoint("a1", crash, List.of()));
        if (expected == null) {
            Reraise reraise = assertInstanceOf(Reraise.class, decision, name);
            assertTrue(!reraise.reason().isBlank(), "a reraise says why");
        } else {
            assertEquals(expected, decision, name);
        }
    }

    static Stream<Arguments> fallbacks() {
        return Stream.of(
                Arguments.of(crash("KeyError", "'x'", "assign", "v = d[k]", List.of("v"), true, "d:dict"),
                        List.of("v = d.get(k)", "v = None")),
                Arguments.of(crash("ZeroDivisionError", "division by zero", "assign", "s = a / b", List.of("s"),
                                true, "a:int", "b:int"),
                        List.of("s = a / b if b else 0.0", "s = 0.0")),
                Arguments.of(crash("AttributeError", "'NoneType' object has no attribute 'x'", "assign", "v = o.x",
                                List.of("v"), true, "o:NoneType"),
                        List.of("v = None")));
    }

    /** Refused heals are replaced by the next, more conservative one, and finally by a reraise. */
    @ParameterizedTest
    @MethodSource("fallbacks")
    void refusedHealsFallBackThenReraise(CrashObservation crash, List<String> expectedCodes) {
        List<RejectedHeal> rejected = new ArrayList<>();
        for (String expectedCode : expectedCodes) {
            AgentDecision decision = agent.decide(new HealPoint("a1", crash, rejected));
            assertEquals(expectedCode, assertInstanceOf(Heal.class, decision).code());
            rejected.add(new RejectedHeal(expectedCode, "gate: rejected"));
        }
        Reraise last = assertInstanceOf(Reraise.class, agent.decide(new HealPoint("a1", crash, rejected)));
        assertTrue(last.reason().contains(crash.exceptionType()), last.reason());
    }

    @Test
    void aRefusalOfAnUnrelatedCodeDoesNotSkipTheBestHeal() {
        CrashObservation crash = crash("KeyError", "'x'", "assign", "v = d[k]", List.of("v"), true, "d:dict");
        AgentDecision decision = agent.decide(new HealPoint("a1", crash,
                List.of(new RejectedHeal("v = {}", "written by another agent"))));
        assertEquals(new Heal("v = d.get(k)", HealResume.SKIP), decision);
    }

    @Test
    void theHealsStayInsideTheHealCoreSubset() {
        List<String> forbidden = List.of("exec", "eval", "lambda", "def ", "class ", "import", "__", "yield");
        firstDecisions().map(arguments -> (CrashObservation) arguments.get()[1])
                .flatMap(crash -> agent.plan(crash).stream())
                .filter(Heal.class::isInstance)
                .map(step -> ((Heal) step).code())
                .forEach(code -> forbidden.forEach(word ->
                        assertTrue(!code.contains(word), () -> code + " contains " + word)));
    }

    @Test
    void isSelectedByTheNameRules() {
        assertEquals("rules", agent.name());
    }
}
