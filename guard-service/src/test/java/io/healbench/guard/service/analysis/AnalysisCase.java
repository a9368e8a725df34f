package io.healbench.guard.service.analysis;

import io.healbench.common.heal.Resume;
import io.healbench.common.guard.HealAnalysis;
import java.util.ArrayList;
import java.util.List;

/**
 * One AnalyzeHeal input built from Python sources: the crash statement is the line marked {@code # CRASH} in the
 * crash file, each caller's call site the line marked {@code # CALL} with the call's text, Δk as
 * {@code "kind location"} strings.
 */
final class AnalysisCase {

    private final PythonProject project = new PythonProject();
    private String crashFile;
    private String qualname;
    private Resume resume = Resume.SKIP;
    private final List<HealAnalysis.DeltaEntry> delta = new ArrayList<>();
    private final List<String[]> callers = new ArrayList<>();
    private String policy = PythonProject.defaultPolicy();

    static AnalysisCase crashIn(String file, String qualname, String source) {
        AnalysisCase c = new AnalysisCase();
        c.crashFile = file;
        c.qualname = qualname;
        c.project.file(file, source);
        return c;
    }

    AnalysisCase file(String file, String source) {
        project.file(file, source);
        return this;
    }

    AnalysisCase resume(Resume mode) {
        resume = mode;
        return this;
    }

    /** A Δk entry, e.g. {@code "both name:x"}, or with other paths to its owner: {@code "both attr:job.out also view"}. */
    AnalysisCase delta(String entry) {
        String[] parts = entry.split(" ");
        List<String> also = parts.length > 3 && parts[2].equals("also") ? List.of(parts).subList(3, parts.length) : List.of();
        delta.add(new HealAnalysis.DeltaEntry(parts[1], parts[0], "'old'", "'new'", also));
        return this;
    }

    /** A project caller (innermost first): its file, qualname, and the call's text on its {@code # CALL} line. */
    AnalysisCase caller(String file, String qualname, String callText) {
        callers.add(new String[] {file, qualname, callText});
        return this;
    }

    AnalysisCase policy(String json) {
        policy = json;
        return this;
    }

    AnalysisInput input() {
        String[] crashLines = project.source(crashFile).split("\n", -1);
        int line = lineOf(crashLines, "# CRASH");
        String text = crashLines[line - 1];
        int col = text.length() - text.stripLeading().length();
        int endCol = text.indexOf("# CRASH");
        String kind = text.strip().startsWith("return") ? "return" : "assign";
        List<HealAnalysis.CallSite> sites = new ArrayList<>();
        for (String[] caller : callers) {
            String[] lines = project.source(caller[0]).split("\n", -1);
            int callLine = lineOf(lines, "# CALL");
            int callCol = lines[callLine - 1].indexOf(caller[2]);
            sites.add(new HealAnalysis.CallSite(caller[0], caller[1].substring(caller[1].lastIndexOf('.') + 1), caller[1],
                    callLine, callCol, callLine, callCol + caller[2].length(), false));
        }
        HealAnalysis.CrashPoint point = new HealAnalysis.CrashPoint(crashFile, qualname.substring(qualname.lastIndexOf('.') + 1),
                qualname, line, col, line, endCol, kind, resume, sites);
        return new AnalysisInput("", new HealAnalysis(1, delta, false, point, project.export(), false), policy);
    }

    AnalysisResult analyze() {
        return new HealAnalyzer().analyze(input());
    }

    private static int lineOf(String[] lines, String marker) {
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].contains(marker)) {
                return i + 1;
            }
        }
        throw new IllegalArgumentException("no line marked " + marker);
    }
}
