package io.healbench.agent.service.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.agent.service.AgentDecision;
import io.healbench.agent.service.AgentDecision.Heal;
import io.healbench.agent.service.AgentDecision.Reraise;
import io.healbench.agent.service.AttemptSpec;
import io.healbench.agent.service.CrashObservation;
import io.healbench.agent.service.HealPoint;
import io.healbench.common.heal.Resume;
import io.healbench.agent.service.HealingAgent;
import io.healbench.agent.service.LlmSettings;
import io.healbench.agent.service.ObservedFrame;
import io.healbench.agent.service.ObservedLocal;
import io.healbench.agent.service.ObservedStatement;
import io.healbench.agent.service.RejectedHeal;
import io.healbench.common.guard.GuardMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RulesAgentTest {

    private final RulesAgent agent = new RulesAgent();
    /** Each attempt's agent, by attempt id, held as the runner holds it: from the attempt's first crash to its end. */
    private final Map<String, HealingAgent> attempts = new HashMap<>();

    /**
     * A crash as the runtime reports it; locals are "name:type" pairs (repr {@code <type>}) or
     * "name:type=repr".
     */
    private static CrashObservation crash(String type, String message, String kind, String source,
            List<String> targets, boolean inFunction, String... locals) {
        List<ObservedLocal> observed = observed(locals);
        return new CrashObservation(1, type, message, new ObservedStatement(source, kind, targets, 42), observed,
                inFunction);
    }

    private static List<ObservedLocal> observed(String... locals) {
        return Arrays.stream(locals)
                .map(pair -> pair.split(":", 2))
                .map(pair -> {
                    String[] typed = pair[1].split("=", 2);
                    return new ObservedLocal(pair[0], typed[0], typed.length > 1 ? typed[1] : "<" + typed[0] + ">");
                })
                .toList();
    }

    private static Arguments heal(String name, CrashObservation crash, String code, Resume resume) {
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
                        "v = d.get(k)", Resume.SKIP),
                heal("subscript through an attribute path of a local",
                        crash("KeyError", "'name'", "assign", "value = self.cache[name]", List.of("value"), true,
                                "self:Registry", "name:str"),
                        "value = self.cache.get(name)", Resume.SKIP),
                heal("tuple key keeps its tuple",
                        crash("KeyError", "(1, 2)", "assign", "cell = grid[row, col]", List.of("cell"), true,
                                "grid:dict", "row:int", "col:int"),
                        "cell = grid.get((row, col))", Resume.SKIP),
                heal("string key holding a bracket",
                        crash("KeyError", "']'", "assign", "c = closers[\"]\"]", List.of("c"), true,
                                "closers:OrderedDict"),
                        "c = closers.get(\"]\")", Resume.SKIP),
                heal("chained subscript is not rewritten",
                        crash("KeyError", "'b'", "assign", "x = d[a][b]", List.of("x"), true, "d:dict"),
                        "x = None", Resume.SKIP),
                heal("subscript of a list-typed local is not a mapping",
                        crash("KeyError", "'k'", "assign", "x = items[k]", List.of("x"), true, "items:list"),
                        "x = None", Resume.SKIP),
                heal("mapping not among the locals (a global)",
                        crash("KeyError", "'k'", "assign", "x = REGISTRY[k]", List.of("x"), true, "k:str"),
                        "x = None", Resume.SKIP),
                heal("KeyError inside a larger expression: the missing key defaults to 0 as an operand",
                        crash("KeyError", "'k'", "assign", "total = counts[k] + 1", List.of("total"), true,
                                "counts:dict"),
                        "total = counts.get(k, 0) + 1", Resume.SKIP),
                // KeyError: default for a missing key, in assignments to a subscript or attribute
                heal("accumulator into a subscript: an arithmetic operand defaults to 0",
                        crash("KeyError", "Fraction(1, 3)", "assign", "partials[d] = partials[d] + n", List.of(),
                                true, "partials:dict={}", "d:Fraction=Fraction(1, 3)", "n:int=1"),
                        "partials[d] = partials.get(d, 0) + n", Resume.SKIP),
                heal("right operand, Counter, subscript target",
                        crash("KeyError", "'b'", "assign", "seen[w] = 2 * seen[w]", List.of(), true,
                                "seen:Counter", "w:str='b'"),
                        "seen[w] = 2 * seen.get(w, 0)", Resume.SKIP),
                heal("unary minus is arithmetic",
                        crash("KeyError", "'x'", "assign", "out[k] = -base[k]", List.of(), true,
                                "out:dict", "base:defaultdict", "k:str='x'"),
                        "out[k] = -base.get(k, 0)", Resume.SKIP),
                heal("not an arithmetic operand defaults to None",
                        crash("KeyError", "'x'", "assign", "cache[k] = wrap(table[k])", List.of(), true,
                                "cache:dict", "table:OrderedDict", "k:str='x'"),
                        "cache[k] = wrap(table.get(k, None))", Resume.SKIP),
                heal("a comparison operand defaults to None",
                        crash("KeyError", "'x'", "assign", "flags[k] = seen[k] > 0", List.of(), true,
                                "flags:dict", "seen:dict", "k:str='x'"),
                        "flags[k] = seen.get(k, None) > 0", Resume.SKIP),
                heal("assignment to an attribute",
                        crash("KeyError", "'k'", "assign", "self.total = counts[k] * 2", List.of(), true,
                                "self:Box", "counts:dict"),
                        "self.total = counts.get(k, 0) * 2", Resume.SKIP),
                heal("tuple key keeps its tuple in .get",
                        crash("KeyError", "(1, 2)", "assign", "grid[r, c] = grid[r, c] + 1", List.of(), true,
                                "grid:dict", "r:int=1", "c:int=2"),
                        "grid[r, c] = grid.get((r, c), 0) + 1", Resume.SKIP),
                heal("only the load of the missing key is rewritten",
                        crash("KeyError", "'b'", "assign", "totals[a] = totals[a] + extra[b]", List.of(), true,
                                "totals:dict", "extra:dict", "a:str='a'", "b:str='b'"),
                        "totals[a] = totals[a] + extra.get(b, 0)", Resume.SKIP),
                reraise("subscript assignment from a list-typed local",
                        crash("KeyError", "'k'", "assign", "xs[i] = xs[i] + 1", List.of(), true, "xs:list",
                                "i:int=3")),
                reraise("subscript assignment from a mapping that is not a local",
                        crash("KeyError", "'k'", "assign", "d[k] = TABLE[k] + 1", List.of(), true, "d:dict",
                                "k:str='k'")),
                reraise("a missing value used as an object has no neutral default",
                        crash("KeyError", "'k'", "assign", "d[k] = d[k].strip()", List.of(), true, "d:dict",
                                "k:str='k'")),
                reraise("a slice is not a key",
                        crash("KeyError", "'k'", "assign", "d[k] = d[1:2] + 1", List.of(), true, "d:dict")),
                heal("KeyError in a return",
                        crash("KeyError", "'k'", "return", "return d[k]", List.of(), true, "d:dict"),
                        "_return_ = None", Resume.RETURN),
                heal("KeyError in an expression statement",
                        crash("KeyError", "'k'", "expr", "print(d[k])", List.of(), true, "d:dict"),
                        "pass", Resume.SKIP),
                reraise("KeyError in a del statement",
                        crash("KeyError", "'k'", "delete", "del d[k]", List.of(), true, "d:dict")),
                // AttributeError
                heal("None attribute in a tuple assignment binds every target",
                        crash("AttributeError", "'NoneType' object has no attribute 'group'", "assign",
                                "attrname, rest, attrvalue = m.group(1, 2, 3)",
                                List.of("attrname", "rest", "attrvalue"), true, "m:NoneType", "k:int"),
                        "attrname = None\nrest = None\nattrvalue = None", Resume.SKIP),
                heal("None attribute in an expression statement is skipped",
                        crash("AttributeError", "'NoneType' object has no attribute 'close'", "expr",
                                "self.stream.close()", List.of(), true, "self:Reader"),
                        "pass", Resume.SKIP),
                reraise("attribute missing on a real object",
                        crash("AttributeError", "'str' object has no attribute 'decode'", "assign",
                                "text = data.decode()", List.of("text"), true, "data:str")),
                // ZeroDivisionError
                heal("true division is guarded by its divisor, float zero",
                        crash("ZeroDivisionError", "float division by zero", "assign", "s = rangec / sumc",
                                List.of("s"), true, "rangec:float", "sumc:float", "l:float"),
                        "s = rangec / sumc if sumc else 0.0", Resume.SKIP),
                heal("parenthesized divisor",
                        crash("ZeroDivisionError", "float division by zero", "assign",
                                "s = rangec / (2.0-maxc-minc)", List.of("s"), true, "rangec:float"),
                        "s = rangec / (2.0-maxc-minc) if (2.0-maxc-minc) else 0.0", Resume.SKIP),
                heal("floor division of ints keeps an int zero",
                        crash("ZeroDivisionError", "integer division or modulo by zero", "assign",
                                "per_page = total // pages", List.of("per_page"), true, "total:int", "pages:int"),
                        "per_page = total // pages if pages else 0", Resume.SKIP),
                heal("modulo with a float operand gets a float zero",
                        crash("ZeroDivisionError", "float modulo", "assign", "r = angle % period", List.of("r"),
                                true, "angle:float", "period:int"),
                        "r = angle % period if period else 0.0", Resume.SKIP),
                heal("division not readable from the source binds zero",
                        crash("ZeroDivisionError", "integer division or modulo by zero", "assign",
                                "q, r = divmod(x, y)", List.of("q", "r"), true, "x:int", "y:int"),
                        "q = 0\nr = 0", Resume.SKIP),
                heal("division in a return returns zero",
                        crash("ZeroDivisionError", "division by zero", "return", "return hits / total",
                                List.of(), true, "hits:int", "total:int"),
                        "_return_ = 0", Resume.RETURN),
                heal("augmented assignment is skipped, keeping the accumulator",
                        crash("ZeroDivisionError", "division by zero", "augassign", "acc += x / n",
                                List.of("acc"), true, "acc:float", "x:float", "n:int"),
                        "pass", Resume.SKIP),
                // TypeError / ValueError / IndexError
                heal("TypeError with an unbound target binds None",
                        crash("TypeError", "'str' object cannot be interpreted as an integer", "assign",
                                "g = math.gcd(numerator, denominator)", List.of("g"), true, "numerator:int",
                                "denominator:str"),
                        "g = None", Resume.SKIP),
                // TypeError: restore a dropped conversion
                heal("a str local holding an int literal is converted, then the statement is retried",
                        crash("TypeError", "'str' object cannot be interpreted as an integer", "assign",
                                "g = math.gcd(numerator, denominator)", List.of("g"), true, "numerator:int=3",
                                "denominator:str='2'", "denom:str='2'"),
                        "denominator = int(denominator)", Resume.RETRY),
                heal("a float literal is converted with float",
                        crash("TypeError", "unsupported operand type(s) for +: 'float' and 'str'", "assign",
                                "total = price + tax", List.of("total"), true, "price:float=9.5", "tax:str='0.25'"),
                        "tax = float(tax)", Resume.RETRY),
                heal("every numeric str the statement reads, in order",
                        crash("TypeError", "'str' object cannot be interpreted as an integer", "expr",
                                "out.extend(range(start, stop))", List.of(), true, "out:list",
                                "stop:str=' 10 '", "start:str='1_000'"),
                        "start = int(start)\nstop = int(stop)", Resume.RETRY),
                heal("a comparison with a str in a return",
                        crash("TypeError", "'<' not supported between instances of 'str' and 'int'", "return",
                                "return n < limit", List.of(), true, "n:str='-4'", "limit:int=3"),
                        "n = int(n)", Resume.RETRY),
                heal("a str that is not a number is not converted",
                        crash("TypeError", "'str' object cannot be interpreted as an integer", "assign",
                                "g = math.gcd(a, b)", List.of("g"), true, "a:int=4", "b:str='x'"),
                        "g = None", Resume.SKIP),
                heal("a numeric str the statement does not read is not converted",
                        crash("TypeError", "'str' object cannot be interpreted as an integer", "assign",
                                "g = math.gcd(a, b)", List.of("g"), true, "a:int=4", "b:list=[]", "c:str='7'"),
                        "g = None", Resume.SKIP),
                heal("a TypeError not about str converts nothing",
                        crash("TypeError", "unsupported operand type(s) for +: 'int' and 'NoneType'", "assign",
                                "t = s + x", List.of("t"), true, "s:str='7'", "x:NoneType=None"),
                        "t = None", Resume.SKIP),
                heal("an attribute of the same name is not a local read",
                        crash("TypeError", "'str' object cannot be interpreted as an integer", "assign",
                                "r = range(self.n)", List.of("r"), true, "n:str='3'", "self:Box"),
                        "r = None", Resume.SKIP),
                heal("ValueError with a bound target keeps its value",
                        crash("ValueError", "invalid literal for int() with base 10: 'x'", "assign", "n = int(n)",
                                List.of("n"), true, "n:str"),
                        "pass", Resume.SKIP),
                heal("only the unbound targets are bound",
                        crash("TypeError", "cannot unpack non-iterable NoneType object", "assign", "a, b = pair",
                                List.of("a", "b"), true, "a:int", "pair:NoneType"),
                        "b = None", Resume.SKIP),
                heal("IndexError in a return returns None",
                        crash("IndexError", "string index out of range", "return",
                                "return shortopts[i+1] == ':'", List.of(), true, "opt:str", "shortopts:str",
                                "i:int"),
                        "_return_ = None", Resume.RETURN),
                reraise("a return outside a function cannot return",
                        crash("IndexError", "list index out of range", "return", "return xs[0]", List.of(),
                                false)),
                heal("IndexError in an expression statement",
                        crash("IndexError", "list index out of range", "expr", "out.append(xs[3])", List.of(), true,
                                "out:list", "xs:list"),
                        "pass", Resume.SKIP),
                reraise("an annotated assignment to an attribute",
                        crash("TypeError", "unsupported operand", "annassign", "self.size: int = a + b", List.of(),
                                true, "self:Box")),
                heal("annotated assignment to a name",
                        crash("TypeError", "unsupported operand", "annassign", "size: int = a + b", List.of("size"),
                                true, "a:int", "b:str"),
                        "size = None", Resume.SKIP),
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
                        List.of("v = None")),
                Arguments.of(crash("KeyError", "'k'", "assign", "total = counts[k] + 1", List.of("total"), true,
                                "counts:dict"),
                        List.of("total = counts.get(k, 0) + 1", "total = None")),
                Arguments.of(crash("TypeError", "'str' object cannot be interpreted as an integer", "assign",
                                "g = math.gcd(a, b)", List.of("g"), true, "a:int=4", "b:str='6'"),
                        List.of("b = int(b)", "g = None")));
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
        assertEquals(new Heal("v = d.get(k)", Resume.SKIP), decision);
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

    // --- early exit after a failed local repair (per-attempt memory) ---

    private static final String FILE = "/src/colorsys.py";
    private static final String RGB_TO_HLS = """
            def rgb_to_hls(r, g, b):
                maxc = max(r, g, b)
                minc = min(r, g, b)
                sumc = (maxc+minc)
                rangec = (maxc-minc)
                l = sumc/2.0
                if l <= 0.5:
                    s = rangec / sumc
                else:
                    s = rangec / (2.0-sumc)
                rc = (maxc-r) / rangec
                if r == maxc:
                    h = bc-gc
                else:
                    h = 4.0+gc-rc
                h = (h/6.0) % 1.0
                return h, l, s
            """;

    /** A crash at {@code line} of a function of {@link #FILE}, called from the test's line 30. */
    private static CrashObservation inFunction(int healPoint, String type, String message, String kind,
            String source, List<String> targets, int line, String functionSource, String... locals) {
        String function = FunctionSource.parameters(functionSource).isEmpty() ? "f"
                : functionSource.strip().replaceFirst("^def\\s+(\\w+).*(?s).*", "$1");
        return new CrashObservation(healPoint, type, message, new ObservedStatement(source, kind, targets, line, FILE),
                observed(locals), true, functionSource,
                List.of(new ObservedFrame("/test/test_x.py", 30, "test_x", ""), new ObservedFrame(FILE, line, function, "")),
                List.of());
    }

    private static CrashObservation rgbCrash(int healPoint, int line, String source, String target, String... locals) {
        return inFunction(healPoint, "ZeroDivisionError", "float division by zero", "assign", source, List.of(target),
                line, RGB_TO_HLS, locals);
    }

    private HealingAgent attempt(String attemptId) {
        return attempts.computeIfAbsent(attemptId, id -> agent.forAttempt(new AttemptSpec("tenant", "run", id,
                "instance", 0, RulesAgent.NAME, GuardMode.ENFORCE, LlmSettings.NONE, "")));
    }

    private AgentDecision ask(String attempt, CrashObservation crash) {
        return attempt(attempt).decide(new HealPoint(attempt, crash, List.of()));
    }

    @Test
    void aCallThatCrashesAgainAfterAHealReturnsEarlyShapedLikeItsReturn() {
        String[] black = {"r:float=0.0", "g:float=0.0", "b:float=0.0", "maxc:float=0.0", "minc:float=0.0",
            "sumc:float=0.0", "rangec:float=0.0", "l:float=0.0"};
        assertEquals(new Heal("s = rangec / sumc if sumc else 0.0", Resume.SKIP),
                ask("cascade", rgbCrash(1, 8, "s = rangec / sumc", "s", black)));
        String[] blackHealed = Stream.concat(Arrays.stream(black), Stream.of("s:float=0.0")).toArray(String[]::new);
        assertEquals(new Heal("_return_ = 0.0, l, s", Resume.RETURN),
                ask("cascade", rgbCrash(2, 11, "rc = (maxc-r) / rangec", "rc", blackHealed)),
                "the same call crashed again at another statement: h is not bound yet, s is");
        String[] white = {"r:float=1.0", "g:float=1.0", "b:float=1.0", "maxc:float=1.0", "minc:float=1.0",
            "sumc:float=2.0", "rangec:float=0.0", "l:float=1.0"};
        assertEquals(new Heal("_return_ = 0.0, l, 0.0", Resume.RETURN),
                ask("cascade", rgbCrash(3, 8, "s = rangec / (2.0-sumc)", "s", white)),
                "another call crashing at a site where a local repair failed returns early at once");
        assertEquals(new Heal("s = rangec / sumc if sumc else 0.0", Resume.SKIP),
                ask("another attempt", rgbCrash(3, 8, "s = rangec / sumc", "s", white)),
                "memory is per attempt");
    }

    @Test
    void theAttemptsMemoryIsDroppedWhenItEnds() {
        String[] state = {"r:float=0.0", "g:float=0.0", "b:float=0.0", "rangec:float=0.0", "sumc:float=0.0",
            "l:float=0.0"};
        ask("ended", rgbCrash(1, 8, "s = rangec / sumc", "s", state));
        attempts.remove("ended").attemptEnded("ended");
        assertEquals(new Heal("rc = (maxc-r) / rangec if rangec else 0.0", Resume.SKIP),
                ask("ended", rgbCrash(2, 11, "rc = (maxc-r) / rangec", "rc", state)));
    }

    private static final String SUM = """
            def _sum(data):
                count = 0
                partials = {}
                for n, d in map(_exact_ratio, data):
                    count += 1
                    partials[d] = partials[d] + n
                return (T, total, count)
            """;

    private static CrashObservation sumCrash(int healPoint, String... locals) {
        return inFunction(healPoint, "KeyError", locals[1].substring(locals[1].indexOf('=') + 1), "assign",
                "partials[d] = partials[d] + n", List.of(), 6, SUM, locals);
    }

    static Stream<Arguments> sameSiteAgain() {
        return Stream.of(
                Arguments.of("a loop making progress (other locals changed) keeps healing locally",
                        new String[] {"data:list=[1, 2]", "d:int=1", "n:int=1", "count:int=1", "partials:dict={}"},
                        new String[] {"data:list=[1, 2]", "d:int=2", "n:int=1", "count:int=2",
                            "partials:dict={1: 1}"},
                        new Heal("partials[d] = partials.get(d, 0) + n", Resume.SKIP)),
                Arguments.of("the same site with nothing changed but what the heal bound makes no progress",
                        new String[] {"data:list=[1, 2]", "d:int=1", "n:int=1", "count:int=1", "partials:dict={}"},
                        new String[] {"data:list=[1, 2]", "d:int=1", "n:int=1", "count:int=1", "partials:dict={}"},
                        new Heal("_return_ = T, total, count", Resume.RETURN)),
                Arguments.of("another call (other arguments) is not the same call",
                        new String[] {"data:list=[1, 2]", "d:int=1", "n:int=1", "count:int=1", "partials:dict={}"},
                        new String[] {"data:list=[3]", "d:int=1", "n:int=1", "count:int=1", "partials:dict={}"},
                        new Heal("partials[d] = partials.get(d, 0) + n", Resume.SKIP)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sameSiteAgain")
    void aSecondCrashAtTheSameSite(String name, String[] first, String[] second, Heal expected) {
        String attempt = "same-site " + name;
        ask(attempt, sumCrash(1, first));
        assertEquals(expected, ask(attempt, sumCrash(2, second)), name);
    }

    @Test
    void aCallThatReturnedIsNotResumedTwice() {
        String source = "def get(d, k):\n    v = d[k]\n    return v\n";
        CrashObservation atReturn = inFunction(1, "KeyError", "'k'", "return", "return d[k]", List.of(), 2, source,
                "d:dict={}", "k:str='k'");
        assertEquals(new Heal("_return_ = None", Resume.RETURN), ask("returned", atReturn));
        CrashObservation later = inFunction(2, "KeyError", "'k'", "assign", "v = d[k]", List.of("v"), 3, source,
                "d:dict={}", "k:str='k'");
        assertEquals(new Heal("v = d.get(k)", Resume.SKIP), ask("returned", later),
                "the earlier heal ended the call, so this is a new one");
    }

    @Test
    void anEarlyReturnRefusedFallsBackToTheLocalPlan() {
        String[] state = {"r:float=0.0", "g:float=0.0", "b:float=0.0", "rangec:float=0.0", "sumc:float=0.0",
            "l:float=0.0", "s:float=0.0"};
        ask("refused", rgbCrash(1, 8, "s = rangec / sumc", "s", state));
        CrashObservation again = rgbCrash(2, 11, "rc = (maxc-r) / rangec", "rc", state);
        AgentDecision next = attempt("refused").decide(new HealPoint("refused", again,
                List.of(new RejectedHeal("_return_ = 0.0, l, s", "bad_resume: cannot return here"))));
        assertEquals(new Heal("rc = (maxc-r) / rangec if rangec else 0.0", Resume.SKIP), next);
    }

    static Stream<Arguments> earlyReturnValues() {
        return Stream.of(
                Arguments.of("a bound local is returned as it is",
                        "def parse_starttag(self, i):\n    endpos = self.check(i)\n    if endpos < 0:\n"
                                + "        return endpos\n    return endpos\n",
                        new String[] {"self:P", "i:int=3", "endpos:int=9"}, "endpos"),
                Arguments.of("a literal return (error convention) comes first in source order",
                        "def find(xs, v):\n    if not xs:\n        return -1\n    n = 0\n    return n\n",
                        new String[] {"xs:list=[1]", "v:int=2", "n:int=0"}, "-1"),
                Arguments.of("fewest unbound names wins over source order",
                        "def f(a):\n    if a:\n        return total\n    return a\n    total = a + 1\n",
                        new String[] {"a:int=1"}, "a"),
                Arguments.of("an unbound name assigned non-arithmetically becomes None",
                        "def f(a):\n    name = a.strip()\n    return name\n",
                        new String[] {"a:str='x'"}, "None"),
                Arguments.of("an unbound name assigned only integer arithmetic becomes 0",
                        "def f(a):\n    n = a + 1\n    n = n * 2\n    return n\n",
                        new String[] {"a:int=1"}, "0"),
                Arguments.of("a parenthesized one-element tuple keeps its comma",
                        "def f(a):\n    return (a,)\n", new String[] {"a:int=1"}, "a,"),
                Arguments.of("a global name is kept",
                        "def __eq__(self, other):\n    return NotImplemented\n", new String[] {"self:X"},
                        "NotImplemented"),
                Arguments.of("a call in the return expression is not reproduced",
                        "def f(a):\n    return g(a)\n", new String[] {"a:int=1"}, "None"),
                Arguments.of("no return statement returns None",
                        "def f(a):\n    a.x = 1\n", new String[] {"a:X"}, "None"),
                Arguments.of("a generator returns None",
                        "def f(a):\n    yield a\n    return a\n", new String[] {"a:int=1"}, "None"),
                Arguments.of("docstring lines are not returns",
                        "def f(a):\n    \"\"\"Docs.\n\n    return value\n    \"\"\"\n    return a\n",
                        new String[] {"a:int=1"}, "a"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("earlyReturnValues")
    void earlyReturnValue(String name, String functionSource, String[] locals, String expected) {
        CrashObservation crash = inFunction(1, "TypeError", "x", "expr", "f()", List.of(), 2, functionSource, locals);
        assertEquals(expected, EarlyReturn.value(crash), name);
    }

    @Test
    void isSelectedByTheNameRules() {
        assertEquals("rules", agent.name());
    }
}
