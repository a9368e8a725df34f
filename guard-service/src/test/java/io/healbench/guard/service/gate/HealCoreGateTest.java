package io.healbench.guard.service.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class HealCoreGateTest {

    private static final HealCorePolicy POLICY = HealCorePolicy.loadDefault();
    private final HealCoreGate gate = new HealCoreGate(POLICY, HealCoreGate.DEFAULT_MAX_CODE_BYTES);

    static Stream<Arguments> acceptedHeals() {
        return Stream.of(
                Arguments.of("dict lookup with default", "value = d.get(key, None)"),
                Arguments.of("conditional expression", "x = 0 if y == 0 else a / y"),
                Arguments.of("allowlisted import", "import math\nresult = math.floor(v)"),
                Arguments.of("return slot", "_return_ = []"),
                Arguments.of("if/elif/else", """
                        if value is None:
                            value = 0
                        elif isinstance(value, str):
                            value = int(value)
                        else:
                            value = value + 1
                        """),
                Arguments.of("nested blocks dedenting several levels", """
                        for row in rows:
                            if row:
                                for cell in row:
                                    if cell is None:
                                        continue
                                    total += cell
                        _return_ = total
                        """),
                Arguments.of("for/else with break", """
                        for i, item in enumerate(items):
                            if item == target:
                                index = i
                                break
                        else:
                            index = -1
                        """),
                Arguments.of("while/else", "n = 0\nwhile n < 10:\n    n += 1\nelse:\n    done = True\n"),
                Arguments.of("comprehensions", """
                        squares = [x * x for x in values if x is not None]
                        names = {p.name for p in people}
                        index = {k: v for k, v in pairs.items() if k not in skip}
                        matrix = [[c for c in row] for row in grid]
                        """),
                Arguments.of("try/except/else/finally", """
                        try:
                            n = int(text)
                        except (TypeError, ValueError) as error:
                            n = 0
                        except KeyError:
                            raise
                        else:
                            n += 1
                        finally:
                            attempts += 1
                        """),
                Arguments.of("from os import system is allowed: os is allowlisted, the guard decides the call",
                        "from os import system"),
                Arguments.of("submodule imports with aliases",
                        "import os.path as osp\nfrom collections.abc import Mapping, Sequence as Seq\np = osp.join(a, 'b')"),
                Arguments.of("parenthesized from-import", "from typing import (\n    Any,\n    Optional,\n)"),
                Arguments.of("chained, tuple, starred, attribute and subscript targets", """
                        a = b = 0
                        x, *rest = items
                        (p, q), [r, s] = pairs
                        obj.attr[0] = 1
                        self.cache['k'] += 1
                        self._private = {}
                        """),
                Arguments.of("annotated assignment", "count: int = 0\nlimit: Optional[int]"),
                Arguments.of("del, assert, raise from", """
                        del d['k'], x
                        assert x is not None, "x must be set"
                        raise ValueError("bad value") from None
                        """),
                Arguments.of("string literals", "a = r'\\d+' + u'x' + 'it\\'s' \"joined\"\nb = b'raw' + rb'\\x00' + BR'y'\n"
                        + "c = '''multi\nline''' + \"\"\"more \" quotes\"\"\"\n"),
                Arguments.of("f-strings with fields, conversions, nested specs",
                        "msg = f\"{name!r}: {value:>{width}} {d['k']} {{literal}} {x=}\" + rf'{path}\\n'"),
                Arguments.of("numbers", "n = 1_000 + 0x1F + 0o7 + 0b1 + 1.5e-3 + 2j + .5 + 1. + 3.14J"),
                Arguments.of("calls and slices", """
                        f(*args, **kwargs, key=1)
                        y = a[1:2] + a[::2] + a[:-1] + b[:, 0] + c[...]
                        lst.sort(key=operator.itemgetter(1), reverse=True)
                        """),
                Arguments.of("walrus in a condition", "if (n := len(items)) > 0:\n    total = n\n"),
                Arguments.of("reflection with literal names", """
                        name = getattr(obj, 'name', None)
                        if hasattr(x, 'y'):
                            setattr(obj, 'value', 0)
                        delattr(obj, "cache")
                        first = operator.attrgetter('a.b', 'c')(x)
                        """),
                Arguments.of("operators", "x = not a in b and c not in d or e is not f\ny = -a ** -b // c % d @ m << 1 | 2 ^ 3 & ~4"),
                Arguments.of("displays and unpacking", "x = [*a, *b]\ny = {**d1, **d2, 'k': 1}\nz = {1, 2}\nt = ()\nu = (1,)\nprint(*[i for i in y])"),
                Arguments.of("comments, blank lines, continuation, brackets across lines", """
                        # a comment line

                        total = (a +   # trailing comment
                                 b)
                        value = first + \\
                            second
                            # indented comment only
                        call(
                            x,
                            y,
                        )
                        """),
                Arguments.of("semicolons, pass, open and print", "a = 1; b = 2;\npass\nfh = open(path)\nprint(a, b)"),
                Arguments.of("CRLF line ends", "if x:\r\n    y = 1\r\nelse:\r\n    y = 2\r\n"),
                Arguments.of("empty heal", ""),
                Arguments.of("parenthesized single targets of augmented and annotated assignments",
                        "(x) += 1\n((obj.attr)): int = 0\n(d[k]) -= 2"),
                Arguments.of("match, case and type are names too (soft keywords)",
                        "match = re.match(p, s)\nif match:\n    case = match.group(1)\nkind = type(match[0]); match(x)"),
                Arguments.of("single-line compound statement", "if x: y = 1; z = 2\nelse: y = 0"),
                Arguments.of("format strings that walk allowed attributes, or are bytes (no format method)",
                        "s = '{0.real}:{1[k]}'.format(x, d)\nt = 'a\\n{0.imag}'.format(x)\nu = b'{0.__class__}'.format"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("acceptedHeals")
    void acceptsHealCore(String description, String code) {
        GateVerdict verdict = gate.check(code);

        assertTrue(verdict.allowed(), () -> "rejected: " + verdict.diagnostics());
        assertEquals(POLICY.version(), verdict.gateVersion());
    }

    static Stream<Arguments> rejectedHeals() {
        return Stream.of(
                rejected("exec", "exec(\"import os\")", "exec", 1, 1),
                rejected("eval", "x = eval(text)", "eval", 1, 5),
                rejected("compile", "c = compile(src, 'f', 'exec')", "compile", 1, 5),
                rejected("import subprocess", "import math\nimport subprocess", "import subprocess", 2, 8),
                rejected("from subprocess import", "from subprocess import run", "from subprocess import run", 1, 6),
                rejected("import importlib", "import importlib", "import importlib", 1, 8),
                rejected("__import__", "__import__('os')", "__import__", 1, 1),
                rejected("lambda", "key = lambda x: x", "lambda", 1, 7),
                rejected("def", "def f(): pass", "def", 1, 1),
                rejected("class", "class A: pass", "class", 1, 1),
                rejected("generator expression", "g = (x for x in y)", "generator expression", 1, 8),
                rejected("generator expression as sole argument", "total = sum(x for x in y)", "generator expression", 1, 15),
                rejected("yield", "yield 1", "yield", 1, 1),
                rejected("global", "global g", "global", 1, 1),
                rejected("nonlocal", "nonlocal n", "nonlocal", 1, 1),
                rejected("return", "if x:\n    return 1", "return", 2, 5),
                rejected("with", "with open(p) as f:\n    pass", "with", 1, 1),
                rejected("globals()", "g = globals()", "globals", 1, 5),
                rejected("locals()", "print(locals())", "locals", 1, 7),
                rejected("vars()", "v = vars(obj)", "vars", 1, 5),
                rejected("__dict__", "d = x.__dict__", "__dict__", 1, 7),
                rejected("__class__ then __subclasses__", "x.__class__.__subclasses__()", "__class__", 1, 3),
                rejected("getattr with a dunder literal", "getattr(x, '__globals__')", "getattr", 1, 1),
                rejected("getattr with a computed name", "getattr(x, name)", "getattr", 1, 1),
                rejected("getattr with an escaped literal", "getattr(x, '\\x5f_dict__')", "getattr", 1, 1),
                rejected("getattr not called", "g = getattr", "getattr", 1, 5),
                rejected("getattr with a forbidden attribute", "getattr(mod, 'sys')", "getattr", 1, 1),
                rejected("attrgetter with a dunder path", "operator.attrgetter('a.__class__')(x)", "attrgetter", 1, 10),
                rejected("async def", "async def f():\n    pass", "async", 1, 1),
                rejected("await", "y = await x", "await", 1, 5),
                rejected("f-string smuggling exec", "s = f\"{exec('1')}\"", "exec", 1, 8),
                rejected("f-string smuggling in a nested format spec", "s = f'{x:{eval(y)}}'", "eval", 1, 11),
                rejected("f-string smuggling a generator", "s = f'{x for x in y}'", "generator expression", 1, 10),
                rejected("f-string bracket injection", "s = f\"{x) + exec('1') + (y}\"", "f-string", 1, 9),
                rejected("f-string with an empty field", "s = f'{}'", "f-string", 1, 8),
                rejected("syntax error", "x = = 1", "=", 1, 5),
                rejected("unclosed bracket", "x = (1, 2", "end of input", 1, 10),
                rejected("unterminated string", "x = 'abc", "'", 1, 5),
                rejected("tab in indentation", "if x:\n\ty = 1", "indentation", 2, 1),
                rejected("unexpected indent", "  x = 1", "indentation", 1, 3),
                rejected("expected an indented block", "if x:\ny = 1", "indentation", 2, 1),
                rejected("unindent mismatch", "if x:\n    a = 1\n  b = 2", "indentation", 3, 3),
                rejected("star import", "from os import *", "*", 1, 16),
                rejected("relative import", "from . import x", ".", 1, 6),
                rejected("from os import sys", "from os import sys", "from os import sys", 1, 16),
                rejected("module escape through os.sys", "m = os.sys.modules['subprocess']", "sys", 1, 8),
                rejected("typing.ForwardRef evaluates strings", "typing.ForwardRef('x')", "ForwardRef", 1, 8),
                rejected("fullwidth identifier disguising exec", "\uff45\uff58\uff45\uff43('1')", "\uff45\uff58\uff45\uff43", 1, 1),
                rejected("assignment to a call", "f() = 1", "f()", 1, 1),
                rejected("augmented assignment to a tuple", "a, b += 1", "a,b", 1, 1),
                rejected("walrus as a statement", "x := 1", ":=", 1, 3),
                rejected("decorator", "@cache\nx = 1", "@", 1, 1),
                rejected("lambda hidden in a conditional", "f = g if c else lambda: 0", "lambda", 1, 17),
                rejected("async comprehension", "r = [x async for x in y]", "async", 1, 8),
                rejected("breakpoint", "breakpoint()", "breakpoint", 1, 1),
                rejected("frame internals", "g = tb.tb_frame.f_globals", "tb_frame", 1, 8),
                rejected("match statement", "x = 1\nmatch x:\n    case 1:\n        pass", "match", 2, 1),
                rejected("parenthesized match subject", "match (a, b):\n    case [p, q]:\n        pass", "match", 1, 1),
                rejected("getattr fetching a reflective callable", "f = getattr(operator, 'attrgetter')", "getattr", 1, 5),
                rejected("methodcaller calling a reflective callable", "operator.methodcaller('attrgetter', 'a')(operator)",
                        "methodcaller", 1, 10),
                rejected("reflective callable imported under another name", "from operator import attrgetter as ag",
                        "from operator import attrgetter as ag", 1, 22),
                rejected("except*", "try:\n    pass\nexcept* ValueError:\n    pass", "*", 3, 7),
                rejected("three-argument type builds a class", "C = type('C', (), {})", "call of type", 1, 5),
                rejected("calling what type(x) gives", "C = type(int)('C', (), {})", "call of type", 1, 5),
                rejected("type under another name", "make = type", "call of type", 1, 8),
                rejected("a format string walking dunders", "s = '{0.__class__.__mro__}'.format(x)",
                        "format string '{0.__class__.__mro__}'", 1, 29),
                rejected("a nested format field walking dunders", "s = '{0:{1.__dict__}}'.format(x, y)",
                        "format string '{0:{1.__dict__}}'", 1, 24),
                rejected("a format string spelling a dunder with an escape", "s = '{0.\\x5f_class__}'.format(x)",
                        "format string '{0.\\x5f_class__}'", 1, 24),
                rejected("os._exit", "import os\nos._exit(0)", "_exit", 2, 4),
                rejected("os.abort", "import os\nos.abort()", "abort", 2, 4),
                rejected("os.register_at_fork", "import os\nos.register_at_fork(after_in_child=f)", "register_at_fork", 2, 4),
                rejected("sys under the name argparse gives it", "c = _sys.meta_path[0]", "_sys", 1, 5));
    }

    private static Arguments rejected(String description, String code, String construct, int line, int column) {
        return Arguments.of(description, code, construct, line, column);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rejectedHeals")
    void rejectsWithThePreciseConstructAndPosition(String description, String code, String construct, int line,
                                                   int column) {
        GateVerdict verdict = gate.check(code);

        assertFalse(verdict.allowed(), "accepted: " + code);
        GateDiagnostic first = verdict.diagnostics().get(0);
        assertEquals(List.of(construct, line, column), List.of(first.construct(), first.line(), first.column()),
                () -> "diagnostics: " + verdict.diagnostics());
        assertFalse(first.reason().isBlank());
    }

    @Test
    void reportsEveryProblemNotJustTheFirst() {
        GateVerdict verdict = gate.check("import subprocess\nresult = exec(code)\nd = x.__dict__\nf = lambda: 0\n");

        assertEquals(List.of("import subprocess", "exec", "__dict__", "lambda"),
                verdict.diagnostics().stream().map(GateDiagnostic::construct).toList(), verdict.diagnostics()::toString);
        assertEquals(List.of(1, 2, 3, 4), verdict.diagnostics().stream().map(GateDiagnostic::line).toList());
    }

    /** Error recovery guesses the rest of a line; no diagnostic may blame the HealCore code in it. */
    @ParameterizedTest
    @MethodSource("onlyTheConstruct")
    void blamesOnlyTheExcludedConstructInALineWithASyntaxError(String code, List<String> constructs) {
        GateVerdict verdict = gate.check(code);

        assertEquals(constructs, verdict.diagnostics().stream().map(GateDiagnostic::construct).toList(),
                verdict.diagnostics()::toString);
    }

    static Stream<Arguments> onlyTheConstruct() {
        return Stream.of(
                Arguments.of("x = (q for q in t).vars(a)", List.of("generator expression")), // not the name vars
                Arguments.of("ok = hasattr((p for p in w), 'x')", List.of("generator expression")), // not hasattr
                Arguments.of("y = [(yield v) for v in w]", List.of("yield")), // not the list comprehension's for
                Arguments.of("d = {setattr((yield from m), 'k', 7): 1}", List.of("yield")), // nor 'from m' as an import
                Arguments.of("from .a import b", List.of(".")),
                Arguments.of("s = sum(a for a in b) + len([c for c in d])", List.of("generator expression")),
                Arguments.of("x = (lambda: 0)\ny = z.__class__", List.of("lambda", "__class__")));
    }

    @Test
    void reportsBothDunderAttributesOfAChain() {
        GateVerdict verdict = gate.check("x.__class__.__subclasses__()");

        assertEquals(List.of("__class__", "__subclasses__"),
                verdict.diagnostics().stream().map(GateDiagnostic::construct).toList());
        assertEquals(13, verdict.diagnostics().get(1).column());
    }

    @Test
    void reasonsComeFromThePolicyData() {
        GateDiagnostic exec = gate.check("exec('1')").diagnostics().get(0);
        GateDiagnostic lambda = gate.check("lambda: 0").diagnostics().get(0);
        GateDiagnostic module = gate.check("import ctypes").diagnostics().get(0);
        GateDiagnostic syntax = gate.check("x = = 1").diagnostics().get(0);

        assertEquals(POLICY.forbiddenNames().get("exec"), exec.reason());
        assertEquals(POLICY.excludedKeywords().get("lambda"), lambda.reason());
        assertTrue(module.reason().startsWith("module 'ctypes' is not in the HealCore import allowlist"), module.reason());
        assertTrue(syntax.reason().startsWith("not HealCore syntax: unexpected '='"), syntax.reason());
    }

    @Test
    void reportsFStringFieldPositionsOnLaterLinesOfATripleQuotedString() {
        GateVerdict verdict = gate.check("s = f'''first\n  {eval(x)}'''");

        assertEquals(List.of(new GateDiagnostic(2, 4, "eval", POLICY.forbiddenNames().get("eval"))), verdict.diagnostics());
    }

    @Test
    void refusesNestingDeeperThanCPythonAllowsWithoutCrashing() {
        GateVerdict brackets = gate.check("x = " + "(".repeat(300) + "1" + ")".repeat(300));
        GateVerdict unary = gate.check("x = " + "-".repeat(60_000) + "1");

        assertEquals("nesting", brackets.diagnostics().get(0).construct());
        assertFalse(unary.allowed()); // the parser runs out of stack; the gate answers, it does not crash
    }

    @Test
    void refusesOversizedCodeBeforeParsing() {
        HealCoreGate small = new HealCoreGate(POLICY, 16);

        HealCodeTooLargeException e = assertThrows(HealCodeTooLargeException.class,
                () -> small.check("x = 'é' * 1000000"));
        assertEquals(18, e.sizeBytes());
        assertEquals(16, e.limitBytes());
        assertTrue(small.check("x = 'é' * 10000").allowed()); // 16 bytes in UTF-8: at the limit
    }
}
