package io.healbench.guard.service.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The flow shapes of the controlled suite (docs/healguard.md §4), each as an unsafe program (a heal source
 * reaches a protected operation's key input: TAINTED, with the flow as witness) and its safe twin (a look-alike
 * independent value reaches it: CLEAN). The heal repairs a KeyError by writing the name the crash failed to bind.
 */
class FlowShapesTest {

    private static final String HEADER = "import os, shutil, subprocess\nfrom pathlib import Path\n\n";

    /** The template most shapes share: the crash is a KeyError on {@code d["name"]}, so the heal binds {@code name}. */
    private static final String NAME_CRASH = """
            def work(d, base):
                name = d["name"]  # CRASH
                BODY
            """;

    /** (shape, crash qualname, Δk, unsafe body, safe body, sink op); a body replaces {@code BODY} in the template. */
    static Stream<Arguments> shapes() {
        return Stream.of(
                shape("direct", "both name:name", NAME_CRASH,
                        "os.remove(name)", "other = 'report'\n    os.remove(other)", "os.remove"),
                shape("arithmetic", "both name:count", """
                        def work(d, base):
                            count = int(d["count"])  # CRASH
                            BODY
                        """, "pid = count * 2 + 1\n    os.kill(pid, 9)", "pid = 7 * 2 + 1\n    os.kill(pid, 9)", "os.kill"),
                shape("formatting f-string", "both name:name", NAME_CRASH,
                        "open(f'{base}/{name}.log', 'w')", "open(f'{base}/report.log', 'w')", "open"),
                shape("formatting %", "both name:name", NAME_CRASH,
                        "os.system('rm %s' % name)", "os.system('rm %s' % base)", "os.system"),
                shape("formatting format/join/str", "both name:name", NAME_CRASH,
                        "target = '/'.join([base, '{}.txt'.format(str(name))])\n    shutil.rmtree(target)",
                        "target = '/'.join([base, '{}.txt'.format(str('report'))])\n    shutil.rmtree(target)", "shutil.rmtree"),
                shape("container list", "both name:name", NAME_CRASH,
                        "argv = ['ls', name]\n    subprocess.run(argv)", "argv = ['ls', base]\n    subprocess.run(argv)",
                        "subprocess.run"),
                shape("container dict item", "both name:name", NAME_CRASH,
                        "paths = {'log': name, 'tmp': 'scratch'}\n    os.remove(paths['log'])",
                        "paths = {'log': name, 'tmp': 'scratch'}\n    os.remove(paths['tmp'])", "os.remove"),
                shape("container append", "both name:name", NAME_CRASH,
                        "argv = ['ls']\n    argv.append(name)\n    subprocess.call(argv)",
                        "argv = ['ls']\n    argv.append('-l')\n    subprocess.call(argv)", "subprocess.call"),
                shape("attribute", "both attr:self.name", """
                        class Job:
                            def save(self, d):
                                self.name = d["name"]  # CRASH
                                BODY
                        """, "open(self.name, 'a')", "open(self.path, 'a')", "open").crashIn("Job.save"),
                shape("attribute via method", "both attr:self.name", """
                        class Job:
                            def save(self, d):
                                self.name = d["name"]  # CRASH
                                BODY

                            def _cleanup(self):
                                os.unlink(self.target())

                            def target(self):
                                return self.name + '.tmp'

                            def other(self):
                                return self.path + '.tmp'
                        """, "self._cleanup()", "os.unlink(self.other())", "os.unlink").crashIn("Job.save"),
                shape("alias", "both attr:self.cfg.target", """
                        class Job:
                            def run(self, d):
                                self.cfg.target = d["target"]  # CRASH
                                BODY
                        """, "c = self.cfg\n    shutil.rmtree(c.target)", "c = self.cfg\n    shutil.rmtree(c.other)",
                        "shutil.rmtree").crashIn("Job.run"),
                shape("alias mutated", "both name:name", """
                        def work(d, base, job):
                            name = d["name"]  # CRASH
                            BODY
                        """, "argv = []\n    job.argv = argv\n    argv.append(name)\n    subprocess.Popen(job.argv)",
                        "argv = []\n    job.argv = argv\n    argv.append('-l')\n    subprocess.Popen(job.argv)", "subprocess.Popen"),
                shape("callee return", "both name:name", """
                        def suffixed(value, ext):
                            return value + ext

                        def work(d, base):
                            name = d["name"]  # CRASH
                            BODY
                        """, "os.remove(suffixed(name, '.txt'))", "os.remove(suffixed('report', '.txt'))", "os.remove"),
                shape("global", "both name:name", """
                        LAST = None

                        def flush():
                            os.remove(LAST)

                        def work(d, base):
                            global LAST
                            name = d["name"]  # CRASH
                            BODY
                        """, "LAST = name\n    flush()", "LAST = base + '.bak'\n    flush()", "os.remove"),
                shape("loop accumulation", "both name:name", NAME_CRASH,
                        "path = ''\n    for part in [base, '/', name]:\n        path += part\n    open(path, 'x')",
                        "path = ''\n    for part in [base, '/', 'report']:\n        path += part\n    open(path, 'x')", "open"),
                shape("exception path", "both name:name", NAME_CRASH,
                        "try:\n        raise LookupError(name)\n    except LookupError as e:\n        os.remove(e.args[0])",
                        "try:\n        raise LookupError('report')\n    except LookupError as e:\n        os.remove(e.args[0])", "os.remove"),
                shape("exception state", "both name:name", NAME_CRASH,
                        "try:\n        p = name\n        int(base)\n    except ValueError:\n        os.remove(p)",
                        "try:\n        p = 'report'\n        int(name)\n    except ValueError:\n        os.remove(p)", "os.remove"),
                shape("bool/None", "both name:flag", """
                        def work(d, base):
                            flag = d["flag"]  # CRASH
                            BODY
                        """, "os.system(f'echo {flag}')", "os.system(f'echo {None}')", "os.system"),
                shape("path receiver", "both name:name", NAME_CRASH,
                        "(Path(base) / name).write_text('x')", "(Path(base) / 'report').write_text(name)",
                        "pathlib.Path.write_text"));
    }

    private static Shape shape(String name, String delta, String template, String unsafe, String safe, String sink) {
        return new Shape(name, delta, template, unsafe, safe, sink, "work");
    }

    /** One shape; {@code crashIn} changes the crashing function's qualname. */
    record Shape(String name, String delta, String template, String unsafe, String safe, String sink, String qualname)
            implements Arguments {

        Shape crashIn(String otherQualname) {
            return new Shape(name, delta, template, unsafe, safe, sink, otherQualname);
        }

        @Override
        public Object[] get() {
            return new Object[] {this};
        }

        @Override
        public String toString() {
            return name;
        }

        AnalysisResult analyze(String body, UnaryOperator<AnalysisCase> extra) {
            String indent = template.lines().filter(l -> l.contains("BODY")).findFirst().orElseThrow().replace("BODY", "");
            String source = HEADER + template.replace(indent + "BODY", indent + body.replace("\n    ", "\n" + indent));
            return extra.apply(AnalysisCase.crashIn("app.py", qualname, source).delta(delta)).analyze();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void unsafeIsTaintedWithTheFlow(Shape shape) {
        AnalysisResult result = shape.analyze(shape.unsafe(), c -> c);

        assertEquals(AnalysisResult.Verdict.TAINTED, result.verdict(), result::toString);
        assertEquals(shape.sink(), result.sink().op());
        assertEquals(shape.delta().split(" ")[1], result.source());
        List<AnalysisResult.WitnessStep> witness = result.witness();
        assertTrue(witness.get(0).description().startsWith("heal source " + result.source()), witness::toString);
        assertTrue(witness.get(witness.size() - 1).description().contains(shape.sink() + "()"), witness::toString);
        assertEquals(result.sink().line(), witness.get(witness.size() - 1).line());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void safeTwinIsClean(Shape shape) {
        AnalysisResult result = shape.analyze(shape.safe(), c -> c);

        assertEquals(AnalysisResult.Verdict.CLEAN, result.verdict(), result::toString);
        assertEquals(List.of(), result.incomplete());
    }
}
