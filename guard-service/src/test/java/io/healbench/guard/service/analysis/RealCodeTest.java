package io.healbench.guard.service.analysis;

import io.healbench.common.heal.Resume;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.healbench.common.guard.HealAnalysis;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Real code: modules of the interpreter's own standard library (read where it is installed, exported by healrt),
 * with a crash at the first statement of every function and every parameter a heal source. Every analysis must end
 * with a verdict within its budget, its loops stable; a flow it reports must end at a protected operation.
 */
class RealCodeTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Exports the package and lists (file, qualname, line, col, parameters) of each function's first statement. */
    private static final String EXPORT = String.join("\n",
            "import ast, json, os, sys, sysconfig",
            "from healrt import astexport",
            "from healrt.sites import SiteTable",
            "root = sysconfig.get_paths()['stdlib']",
            "files = []",
            "for name in sys.argv[1:]:",
            "    path = os.path.join(root, name)",
            "    if os.path.isdir(path):",
            "        files += [name + '/' + f for f in sorted(os.listdir(path)) if f.endswith('.py')]",
            "    else:",
            "        files.append(name + '.py')",
            "table = SiteTable()",
            "points = []",
            "for relative in files:",
            "    path = os.path.join(root, relative)",
            "    source = open(path, encoding='utf-8').read()",
            "    table.add_file(path, source)",
            "    def walk(body, prefix):",
            "        for node in body:",
            "            if isinstance(node, ast.ClassDef): walk(node.body, prefix + node.name + '.')",
            "            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:",
            "                first = node.body[0]",
            "                args = [a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]",
            "                points.append({'file': relative, 'qualname': prefix + node.name, 'line': first.lineno,",
            "                               'col': first.col_offset, 'params': args})",
            "    walk(ast.parse(source).body, '')",
            "modules, truncated = astexport.export_modules([], table, root)",
            "json.dump({'modules': modules, 'points': points}, sys.stdout)");

    @Test
    void everyFunctionOfTheEmailPackageGetsAVerdict() throws Exception {
        Map<AnalysisResult.Verdict, Integer> verdicts = sweep("email");
        int total = verdicts.values().stream().mapToInt(Integer::intValue).sum();
        assertTrue(total > 300, "functions found: " + total);
        // The email package does no I/O of its own; what is not CLEAN is code the analysis cannot follow.
        assertEquals(0, verdicts.getOrDefault(AnalysisResult.Verdict.TAINTED, 0), verdicts::toString);
        assertTrue(verdicts.getOrDefault(AnalysisResult.Verdict.UNKNOWN, 0) < total / 8, verdicts::toString);
    }

    @Test
    void fileSystemModulesReachTheirProtectedOperations() throws Exception {
        Map<AnalysisResult.Verdict, Integer> verdicts = sweep("shutil", "tempfile");
        assertTrue(verdicts.getOrDefault(AnalysisResult.Verdict.TAINTED, 0) > 20, verdicts::toString);
    }

    /** Every function's first statement as a crash point, every parameter a source; the verdicts by kind. */
    private static Map<AnalysisResult.Verdict, Integer> sweep(String... subjects) throws Exception {
        List<String> command = new ArrayList<>(List.of("python3", "-c", EXPORT));
        command.addAll(List.of(subjects));
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
        builder.environment().put("PYTHONPATH", PythonProject.HOME.resolve("healrt").toString());
        Process python = builder.start();
        byte[] output = python.getInputStream().readAllBytes();
        assertTrue(python.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, python.exitValue(), new String(output, StandardCharsets.UTF_8));
        JsonNode exported = JSON.readTree(output);
        List<HealAnalysis.ModuleTree> modules = new ArrayList<>();
        for (JsonNode module : exported.get("modules")) {
            modules.add(new HealAnalysis.ModuleTree(module.get("file").asText(), module.get("module").asText(),
                    JSON.writeValueAsString(module.get("ast"))));
        }
        String policy = PythonProject.defaultPolicy();
        HealAnalyzer analyzer = new HealAnalyzer();
        Map<AnalysisResult.Verdict, Integer> verdicts = new EnumMap<>(AnalysisResult.Verdict.class);
        for (JsonNode point : exported.get("points")) {
            List<HealAnalysis.DeltaEntry> delta = new ArrayList<>();
            point.get("params").forEach(p -> delta.add(new HealAnalysis.DeltaEntry("name:" + p.asText(), "changed", "1", "2", List.of())));
            AnalysisInput input = new AnalysisInput("", new HealAnalysis(1, delta, false, new HealAnalysis.CrashPoint(
                    point.get("file").asText(), "", point.get("qualname").asText(), point.get("line").asInt(), point.get("col").asInt(),
                    0, 0, "expr", Resume.SKIP, List.of()), modules, false), policy);
            AnalysisResult result = analyzer.analyze(input);
            verdicts.merge(result.verdict(), 1, Integer::sum);
            if (result.verdict() == AnalysisResult.Verdict.TAINTED) {
                assertNotNull(result.sink(), result::toString);
                assertTrue(result.witness().get(result.witness().size() - 1).description().contains(result.sink().op()),
                        result::toString);
            }
            assertTrue(result.incomplete().stream().noneMatch(i -> i.construct().equals("crash point")
                    || i.construct().equals("analysis budget") || i.construct().equals("loop")), () -> point + " -> " + result);
        }
        System.out.println(String.join(", ", subjects) + ": verdicts " + verdicts);
        return verdicts;
    }
}
