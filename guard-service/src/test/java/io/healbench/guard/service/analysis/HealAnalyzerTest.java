package io.healbench.guard.service.analysis;

import io.healbench.common.heal.Resume;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.common.guard.HealAnalysis;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The analysis beyond one function: resume modes, callers' continuations, project modules, constructors,
 * properties, generators; the policy's filters and project operations; and what makes a verdict UNKNOWN.
 */
class HealAnalyzerTest {

    private static final String IMPORTS = "import os, shutil, subprocess\n\n";

    private static void assertVerdict(AnalysisResult.Verdict expected, AnalysisResult result) {
        assertEquals(expected, result.verdict(), result::toString);
    }

    // ---------------------------------------------------------------- resume modes and callers

    @Test
    void returnedValueFlowsIntoTheCallersSink() {
        String source = IMPORTS + """
                def lookup(d):
                    return d["path"]  # CRASH

                def clean(d):
                    p = lookup(d)  # CALL
                    os.remove(p)

                def keep(d):
                    lookup(d)  # CALL
                    os.remove("fixed")
                """;
        AnalysisResult unsafe = AnalysisCase.crashIn("app.py", "lookup", source).resume(Resume.RETURN).delta("both name:_return_")
                .caller("app.py", "clean", "lookup(d)").analyze();
        assertVerdict(AnalysisResult.Verdict.TAINTED, unsafe);
        assertTrue(unsafe.witness().stream().anyMatch(s -> s.description().contains("returned to clean()")), unsafe::toString);

        String keep = source.replace("p = lookup(d)  # CALL", "p = lookup(d)");
        AnalysisResult safe = AnalysisCase.crashIn("app.py", "lookup", keep).resume(Resume.RETURN).delta("both name:_return_")
                .caller("app.py", "keep", "lookup(d)").analyze();
        assertVerdict(AnalysisResult.Verdict.CLEAN, safe);
    }

    @Test
    void skipAtAReturnStatementReturnsTheSlot() {
        String source = IMPORTS + """
                def lookup(d):
                    return d["path"]  # CRASH

                def clean(d):
                    shutil.rmtree(lookup(d))  # CALL
                """;
        AnalysisResult result = AnalysisCase.crashIn("app.py", "lookup", source).delta("written name:_return_")
                .caller("app.py", "clean", "lookup(d)").analyze();
        assertVerdict(AnalysisResult.Verdict.TAINTED, result);
        assertEquals("shutil.rmtree", result.sink().op());
    }

    @Test
    void retryRunsTheCrashStatementAgainWithTheHealedState() {
        String source = IMPORTS + """
                def work(d, key):
                    target = d[key]  # CRASH
                    os.remove(target)
                """;
        // The heal wrote the missing item; the retried statement reads it.
        assertVerdict(AnalysisResult.Verdict.TAINTED, AnalysisCase.crashIn("app.py", "work", source).resume(Resume.RETRY)
                .delta("changed item:d['path']").analyze());
        String constantKey = source.replace("d[key]", "d['other']");
        assertVerdict(AnalysisResult.Verdict.CLEAN, AnalysisCase.crashIn("app.py", "work", constantKey).resume(Resume.RETRY)
                .delta("changed item:d['path']").analyze());
    }

    @Test
    void aHealedItemOfAFreeVariableReachesTheSinkThroughTheCell() {
        // A memoizing decorator: the crash is in the wrapper, the heal writes the cache (a local of memoize),
        // and the wrapper reads the cache back with a computed key (found by the controlled suite on thefuck).
        String source = IMPORTS + """
                def memoize(fn):
                    memo = {}

                    def wrapper(*args):
                        key = repr(args)
                        if key not in memo:
                            memo[key] = fn(*args)  # CRASH
                        value = memo[key]
                        os.remove(value)
                        return value

                    return wrapper
                """;
        AnalysisResult unsafe = AnalysisCase.crashIn("app.py", "memoize.<locals>.wrapper", source)
                .delta("written item:memo[b'\\x80\\x04k']").analyze();
        assertVerdict(AnalysisResult.Verdict.TAINTED, unsafe);
        assertEquals("os.remove", unsafe.sink().op());

        String independent = source.replace("os.remove(value)", "os.remove('fixed')");
        assertVerdict(AnalysisResult.Verdict.CLEAN, AnalysisCase.crashIn("app.py", "memoize.<locals>.wrapper", independent)
                .delta("written item:memo[b'\\x80\\x04k']").analyze());
    }

    @Test
    void calleeEffectsOnSelfReachTheCallersLaterCalls() {
        String source = IMPORTS + """
                class Store:
                    def configure(self, d):
                        self.root = d["root"]  # CRASH

                    def wipe(self):
                        shutil.rmtree(self.root)

                    def wipe_cache(self):
                        shutil.rmtree(self.cache)

                def main(store, d):
                    store.configure(d)  # CALL
                    store.wipe()
                """;
        AnalysisResult unsafe = AnalysisCase.crashIn("app.py", "Store.configure", source).delta("both attr:self.root")
                .caller("app.py", "main", "store.configure(d)").analyze();
        assertVerdict(AnalysisResult.Verdict.TAINTED, unsafe);
        assertTrue(unsafe.witness().stream().anyMatch(s -> s.description().contains("changed by app.Store.configure()")),
                unsafe::toString);

        String safeSource = source.replace("    store.wipe()", "    store.wipe_cache()");
        assertVerdict(AnalysisResult.Verdict.CLEAN, AnalysisCase.crashIn("app.py", "Store.configure", safeSource)
                .delta("both attr:self.root").caller("app.py", "main", "store.configure(d)").analyze());
    }

    @Test
    void aBoundMethodAliasFromBeforeTheCrashIsAMethodCall() {
        String source = IMPORTS + """
                def work(d):
                    items = ['ls']
                    add = items.append
                    name = d["name"]  # CRASH
                    BODY
                    subprocess.run(items)
                """;
        assertVerdict(AnalysisResult.Verdict.TAINTED, analyzeNameHeal(source, "add(name)"));
        assertVerdict(AnalysisResult.Verdict.CLEAN, analyzeNameHeal(source, "add('-l')"));
    }

    @Test
    void aGeneratorExpressionBetweenTheCrashAndItsCaller() {
        String source = IMPORTS + """
                def value(x):
                    return x["v"]  # CRASH

                def collect(xs):
                    joined = "".join(value(x) for x in xs)  # CALL
                    BODY
                """;
        AnalysisResult unsafe = AnalysisCase.crashIn("app.py", "value", source.replace("BODY", "os.remove(joined)")).resume(Resume.RETURN)
                .delta("both name:_return_").caller("app.py", "collect.<locals>.<genexpr>", "value(x)")
                .caller("app.py", "collect", "\"\".join(value(x) for x in xs)").analyze();
        assertVerdict(AnalysisResult.Verdict.TAINTED, unsafe);
        assertVerdict(AnalysisResult.Verdict.CLEAN, AnalysisCase.crashIn("app.py", "value", source.replace("BODY", "os.remove('x')"))
                .resume(Resume.RETURN).delta("both name:_return_").caller("app.py", "collect.<locals>.<genexpr>", "value(x)")
                .caller("app.py", "collect", "\"\".join(value(x) for x in xs)").analyze());
    }

    @Test
    void projectImportsAcrossModules() {
        String helpers = """
                import os

                def archive(path):
                    os.rename(path, path + ".old")

                def touch(path):
                    print(path)
                """;
        String app = """
                from helpers import archive, touch as note

                def work(d):
                    name = d["name"]  # CRASH
                    note(name)
                    BODY
                """;
        assertVerdict(AnalysisResult.Verdict.TAINTED, AnalysisCase.crashIn("app.py", "work", app.replace("BODY", "archive(name)"))
                .file("helpers.py", helpers).delta("both name:name").analyze());
        assertVerdict(AnalysisResult.Verdict.CLEAN, AnalysisCase.crashIn("app.py", "work", app.replace("BODY", "archive('x')"))
                .file("helpers.py", helpers).delta("both name:name").analyze());
    }

    @Test
    void constructorsPropertiesAndGenerators() {
        String source = IMPORTS + """
                class Target:
                    def __init__(self, path, mode):
                        self._path = path
                        self.mode = mode

                    @property
                    def path(self):
                        return self._path

                def parts(a, b):
                    yield a
                    yield b

                def work(d, base):
                    name = d["name"]  # CRASH
                    BODY
                """;
        for (String unsafe : List.of("t = Target(name, 'w')\n    open(t.path, t.mode)",
                "for p in parts(base, name):\n        os.remove(p)")) {
            assertVerdict(AnalysisResult.Verdict.TAINTED, analyzeNameHeal(source, unsafe));
        }
        for (String safe : List.of("t = Target(base, name)\n    open(t.path, 'w')",
                "for p in parts(base, 'x'):\n        os.remove(p)")) {
            assertVerdict(AnalysisResult.Verdict.CLEAN, analyzeNameHeal(source, safe));
        }
    }

    @Test
    void aHealedGlobalIsReadByAnyFunction() {
        // The heal bound a module global (not a local of the crashing function: it never assigns it).
        String source = IMPORTS + """
                CACHE_DIR = None
                LOG_DIR = "/tmp/log"

                def purge():
                    shutil.rmtree(CACHE_DIR)

                def rotate():
                    shutil.rmtree(LOG_DIR)

                def work(d):
                    value = d["cache"]  # CRASH
                    BODY
                """;
        assertVerdict(AnalysisResult.Verdict.TAINTED, AnalysisCase.crashIn("app.py", "work", source.replace("BODY", "purge()"))
                .delta("both name:CACHE_DIR").analyze());
        assertVerdict(AnalysisResult.Verdict.CLEAN, AnalysisCase.crashIn("app.py", "work", source.replace("BODY", "rotate()"))
                .delta("both name:CACHE_DIR").analyze());
    }

    @Test
    void aModuleLevelCrashReadsItsGlobalsInOrder() {
        String source = IMPORTS + """
                TARGET = os.environ["TARGET"]  # CRASH
                BODY

                def later():
                    shutil.rmtree(TARGET)
                """;
        assertVerdict(AnalysisResult.Verdict.TAINTED, AnalysisCase.crashIn("app.py", "<module>",
                source.replace("BODY", "os.remove(TARGET + '.lock')")).delta("both name:TARGET").analyze());
        // Rebound before use: the module body sees its own binding; a function called later reads the global.
        assertVerdict(AnalysisResult.Verdict.CLEAN, AnalysisCase.crashIn("app.py", "<module>",
                source.replace("BODY", "TARGET = '/tmp/x'\nos.remove(TARGET)")).delta("both name:TARGET").analyze());
        assertVerdict(AnalysisResult.Verdict.TAINTED, AnalysisCase.crashIn("app.py", "<module>",
                source.replace("BODY", "later()")).delta("both name:TARGET").analyze());
    }

    // ---------------------------------------------------------------- policy

    @Test
    void openIsASinkOnlyInAWriteMode() {
        String source = IMPORTS + """
                def work(d):
                    name = d["name"]  # CRASH
                    BODY
                """;
        for (String write : List.of("open(name, 'w')", "open(name, mode='a+')", "open(name, 'rb+')", "open(name, mode)")) {
            assertVerdict(AnalysisResult.Verdict.TAINTED, analyzeNameHeal(source, "mode = d['m']\n    " + write));
        }
        for (String read : List.of("open(name)", "open(name, 'r')", "open(name, mode='rb')",
                "os.open(name, os.O_RDONLY)")) {
            assertVerdict(AnalysisResult.Verdict.CLEAN, analyzeNameHeal(source, read));
        }
        assertVerdict(AnalysisResult.Verdict.TAINTED, analyzeNameHeal(source, "os.open(name, os.O_WRONLY | os.O_CREAT)"));
    }

    @Test
    void alsoCheckedInputsAndTheEnvironment() {
        String source = IMPORTS + """
                def work(d):
                    name = d["name"]  # CRASH
                    BODY
                """;
        assertVerdict(AnalysisResult.Verdict.TAINTED, analyzeNameHeal(source, "os.rename('/a', name)"));
        assertVerdict(AnalysisResult.Verdict.TAINTED, analyzeNameHeal(source, "os.environ['HOME'] = name"));
        // shutil.copy's key input is the destination only.
        assertVerdict(AnalysisResult.Verdict.CLEAN, analyzeNameHeal(source, "shutil.copy(name, '/tmp/x')"));
        assertVerdict(AnalysisResult.Verdict.TAINTED, analyzeNameHeal(source, "shutil.copy('/tmp/x', dst=name)"));
    }

    @Test
    void projectOperationsAndCheckConditionsFromTheSubjectPolicy() {
        String policy = """
                {"operations": {
                  "file_write": [{"op": "app.Cache.dump_bucket", "arg": "bucket", "index": 0},
                                 {"op": "app.Log.write", "arg": "line", "index": 0}],
                  "security_check": [{"check": "ALLOW_UNSAFE"}]
                }}""";
        String source = """
                ALLOW_UNSAFE = False

                class Cache:
                    def dump_bucket(self, bucket, data):
                        pass

                class Log:
                    def write(self, line):
                        pass

                def work(d, cache):
                    name = d["name"]  # CRASH
                    BODY
                """;
        AnalysisResult dumped = healed(source, "Cache().dump_bucket(name, b'')", policy);
        assertVerdict(AnalysisResult.Verdict.TAINTED, dumped);
        assertEquals("app.Cache.dump_bucket", dumped.sink().op());
        assertVerdict(AnalysisResult.Verdict.CLEAN, healed(source, "Cache().dump_bucket('b', name)", policy));
        // An object of unknown type: the project method with that name, when the name says which.
        assertVerdict(AnalysisResult.Verdict.TAINTED, healed(source, "cache.dump_bucket(name, b'')", policy));
        assertVerdict(AnalysisResult.Verdict.CLEAN, healed(source, "cache.write(name)", policy));
        assertVerdict(AnalysisResult.Verdict.TAINTED, healed(source, "Log().write(name)", policy));
        AnalysisResult checked = healed(source, "global ALLOW_UNSAFE\n    ALLOW_UNSAFE = name\n    if ALLOW_UNSAFE:\n        pass", policy);
        assertVerdict(AnalysisResult.Verdict.TAINTED, checked);
        assertEquals("check ALLOW_UNSAFE", checked.sink().op());
    }

    @Test
    void anAliasMadeBeforeTheCrashCarriesTheHealedLocation() {
        // `view = job` ran before the crash; the heal writes job.out; the code removes view.out. Δk says the paused frame
        // also reaches job under the name view.
        String source = IMPORTS + """
                def work(job):
                    view = job
                    job.out = job.make()  # CRASH
                    BODY
                """;
        AnalysisResult aliased = AnalysisCase.crashIn("app.py", "work", source.replace("BODY", "shutil.rmtree(view.out)"))
                .delta("both attr:job.out also view").analyze();
        assertVerdict(AnalysisResult.Verdict.TAINTED, aliased);
        assertTrue(aliased.witness().stream().anyMatch(step -> step.description().contains("reached as view.out")), aliased.witness().toString());
        // Without the frame's alias fact the analysis, starting at the crash, cannot know: the case the fact exists for.
        assertVerdict(AnalysisResult.Verdict.CLEAN, AnalysisCase.crashIn("app.py", "work", source.replace("BODY", "shutil.rmtree(view.out)"))
                .delta("both attr:job.out").analyze());
        // Another attribute of the alias is not the healed one.
        assertVerdict(AnalysisResult.Verdict.CLEAN, AnalysisCase.crashIn("app.py", "work", source.replace("BODY", "shutil.rmtree(view.tmp)"))
                .delta("both attr:job.out also view").analyze());
        // An item reached through an alias of its container.
        String items = IMPORTS + """
                def work(d):
                    table = d
                    d['path'] = d['missing']  # CRASH
                    shutil.rmtree(table['path'])
                """;
        assertVerdict(AnalysisResult.Verdict.TAINTED, AnalysisCase.crashIn("app.py", "work", items).delta("both item:d['path'] also table").analyze());
    }

    @Test
    void checkConditionsMayNameItemsSpeltEitherWay() {
        String policy = """
                {"operations": {"security_check": [{"check": "SETTINGS[ 'strict' ]"}, {"check": "LEVELS[2]"}]}}""";
        String source = """
                SETTINGS = {"strict": False, "quiet": False}
                LEVELS = [0, 0, 0]

                def work(d):
                    name = d["name"]  # CRASH
                    BODY
                """;
        AnalysisResult item = healed(source, "SETTINGS[\"strict\"] = name\n    if SETTINGS[\"strict\"]:\n        pass", policy);
        assertVerdict(AnalysisResult.Verdict.TAINTED, item);
        assertEquals("check SETTINGS[\"strict\"]", item.sink().op());
        assertVerdict(AnalysisResult.Verdict.TAINTED, healed(source, "LEVELS[2] = name\n    if LEVELS[2]:\n        pass", policy));
        // Another item of the same container is not the declared one.
        assertVerdict(AnalysisResult.Verdict.CLEAN, healed(source, "SETTINGS['quiet'] = name\n    if SETTINGS['quiet']:\n        pass", policy));
    }

    @Test
    void aCheckWithNoCanonicalFormIsRefusedNamingTheEntry() {
        for (String bad : List.of("f()", "S[k]", "S['a\\\\b']", "S[-1]", "S[01]", "S[", "1x", "")) {
            String policy = "{\"operations\": {\"c\": [{\"check\": " + new com.fasterxml.jackson.databind.ObjectMapper()
                    .valueToTree(bad) + "}]}}";
            AnalysisInputException refused = assertThrows(AnalysisInputException.class, () -> ProtectionPolicy.parse(policy), bad);
            assertTrue(refused.getMessage().contains("operations.c[0]: check"), refused.getMessage());
        }
    }

    /** The verdict on a heal of {@code name} at the crash of {@code source}'s {@code work}, its BODY replaced. */
    private static AnalysisResult healed(String source, String body, String policy) {
        return AnalysisCase.crashIn("app.py", "work", source.replace("BODY", body)).delta("both name:name").policy(policy).analyze();
    }

    // ---------------------------------------------------------------- unknown

    @Test
    void whatCannotBeFollowedMakesTheVerdictUnknown() {
        String source = IMPORTS + """
                def work(d, handlers):
                    name = d["name"]  # CRASH
                    BODY
                """;
        AnalysisResult dynamic = analyzeNameHeal(source, "handlers['x'](name)");
        assertVerdict(AnalysisResult.Verdict.UNKNOWN, dynamic);
        assertTrue(dynamic.incomplete().get(0).construct().startsWith("dynamic call"), dynamic::toString);

        AnalysisResult evaluated = analyzeNameHeal(source, "eval(name)");
        assertVerdict(AnalysisResult.Verdict.UNKNOWN, evaluated);
        assertEquals("eval() of a heal-derived value", evaluated.incomplete().get(0).construct());

        AnalysisResult computed = AnalysisCase.crashIn("app.py", "work", source.replace("BODY", "getattr(d, name)"))
                .delta("both attr:d.x").analyze();
        assertVerdict(AnalysisResult.Verdict.UNKNOWN, computed);

        // A dynamic call that receives nothing heal-derived leaves the verdict CLEAN.
        assertVerdict(AnalysisResult.Verdict.CLEAN, analyzeNameHeal(source, "handlers['x']('fixed')"));
    }

    @Test
    void aMissingCrashModuleOrCallerIsUnknown() {
        String source = IMPORTS + """
                def work(d):
                    name = d["name"]  # CRASH
                """;
        AnalysisInput input = AnalysisCase.crashIn("app.py", "work", source).delta("both name:name").input();
        HealAnalysis analysis = input.analysis();
        AnalysisInput moved = new AnalysisInput("", new HealAnalysis(1, analysis.delta(), false, new HealAnalysis.CrashPoint("other.py",
                "work", "work", analysis.crashPoint().line(), analysis.crashPoint().col(), 0, 0, "assign", Resume.SKIP, List.of()),
                analysis.modules(), true), input.policyJson());
        AnalysisResult result = new HealAnalyzer().analyze(moved);
        assertVerdict(AnalysisResult.Verdict.UNKNOWN, result);
        assertEquals(List.of("export cap", "crash module"), result.incomplete().stream().map(AnalysisResult.Incomplete::construct).toList());
    }

    @Test
    void malformedInputIsRefused() {
        AnalysisInput input = AnalysisCase.crashIn("app.py", "work", "def work(d):\n    x = d[0]  # CRASH\n")
                .delta("both name:x").input();
        HealAnalysis analysis = input.analysis();
        AnalysisInput badTree = new AnalysisInput("", new HealAnalysis(1, analysis.delta(), false, analysis.crashPoint(),
                List.of(new HealAnalysis.ModuleTree("app.py", "app", "[1, 2]")), false), input.policyJson());
        assertTrue(assertThrows(AnalysisInputException.class, () -> new HealAnalyzer().analyze(badTree)).getMessage()
                .startsWith("app.py: "));
        AnalysisInput badPolicy = new AnalysisInput("", new HealAnalysis(1, analysis.delta(), false, analysis.crashPoint(),
                analysis.modules(), false), "{\"operations\": {\"x\": [{\"op\": \"os.remove\", \"index\": \"first\"}]}}");
        assertTrue(assertThrows(AnalysisInputException.class, () -> new HealAnalyzer().analyze(badPolicy)).getMessage()
                .startsWith("policy: operations.x[0]: index"));
        AnalysisInput badDelta = new AnalysisInput("", new HealAnalysis(1, List.of(new HealAnalysis.DeltaEntry("x", "both", "", "",
                List.of())), false, analysis.crashPoint(), analysis.modules(), false), input.policyJson());
        assertThrows(AnalysisInputException.class, () -> new HealAnalyzer().analyze(badDelta));
    }

    @Test
    void aTruncatedDeltaMattersOnlyForHealsThatCallCode() {
        assertTrue(HealAnalyzer.mayChangeUnseen("self.items.sort()"));
        assertTrue(HealAnalyzer.mayChangeUnseen("setattr(cfg, 'name', 'x')"));
        assertTrue(HealAnalyzer.mayChangeUnseen(""));
        assertTrue(!HealAnalyzer.mayChangeUnseen("name = 'x'\nself.cfg['k'] = float(v)"));
    }

    @Test
    void deltaLocationsParse() {
        assertEquals(AccessPath.of("self").then(".cfg").then(".name"), Sources.parse("attr:self.cfg.name"));
        assertEquals(AccessPath.of("d").then("[s:a]b]").then("[i:0]"), Sources.parse("item:d['a]b'][0]"));
        assertEquals(AccessPath.of("s").then(Value.ANY_ITEM), Sources.parse("item:s[frozenset({1})]"));
        assertEquals(AccessPath.of("x"), Sources.parse("name:x"));
    }

    /** {@code source} with {@code body} for BODY, analysed as a heal that binds {@code name} in {@code work}. */
    private static AnalysisResult analyzeNameHeal(String source, String body) {
        return AnalysisCase.crashIn("app.py", "work", source.replace("BODY", body)).delta("both name:name").analyze();
    }
}
