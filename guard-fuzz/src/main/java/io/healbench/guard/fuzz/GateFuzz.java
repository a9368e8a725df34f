package io.healbench.guard.fuzz;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;

import io.healbench.guard.fuzz.FuzzReport.Failure;
import io.healbench.guard.fuzz.PythonCheck.Answer;
import io.healbench.guard.fuzz.PythonCheck.Answers;
import io.healbench.guard.service.gate.GateDiagnostic;
import io.healbench.guard.service.gate.GateVerdict;

/**
 * One fuzz run: generates the programs, asks the gate about each, checks each rejection of an
 * outside program (a diagnostic with line, column, construct and reason pointing into the injected
 * construct, none blaming the surrounding HealCore code), then checks every program with CPython's
 * parser and healrt's re-check in one batch.
 */
public final class GateFuzz {

    /**
     * @param python    the interpreter for the batch check
     * @param healcheck healrt's re-check, healrt/healrt/healcheck.py
     * @param samples   failing programs kept per kind of failure
     * @param progress  where to report progress, or null
     */
    public record Options(int programs, long seed, String python, Path healcheck, int samples, PrintStream progress) {
    }

    private GateFuzz() {
    }

    public static FuzzReport run(Options options, ProgramGenerator generator, Function<String, GateVerdict> gate,
                                 String gateVersion) throws IOException, InterruptedException {
        long started = System.nanoTime();
        FuzzReport report = new FuzzReport(options.seed(), options.samples(), generator.classes());
        boolean[] allowed = new boolean[options.programs()];
        Answers answers;
        try (PythonCheck python = new PythonCheck(options.python(), options.healcheck())) {
            for (int i = 0; i < options.programs(); i++) {
                FuzzProgram program = generator.generate(i);
                python.add(program.code());
                report.count(program);
                allowed[i] = judge(program, gate, report);
                if (options.progress() != null && (i + 1) % 10_000 == 0) {
                    options.progress().printf("healcore fuzz: %d programs through the gate%n", i + 1);
                }
            }
            answers = python.run();
        }
        List<Answer> list = answers.answers();
        for (int i = 0; i < list.size(); i++) {
            Answer answer = list.get(i);
            if (!answer.parses()) {
                report.fail(Failure.INVALID_PYTHON, generator.generate(i), answer.message());
            } else if (answer.healcheckAccepts() != allowed[i]) {
                report.fail(Failure.HEALRT_DISAGREEMENT, generator.generate(i), "gate "
                        + (allowed[i] ? "accepts" : "rejects") + ", healcheck " + (answer.healcheckAccepts()
                        ? "accepts" : "rejects: " + answer.message()));
            }
        }
        report.finish(answers.pythonVersion(), gateVersion, (System.nanoTime() - started) / 1e9);
        return report;
    }

    /** Scores the gate's verdict on one program; returns whether the gate allowed it. */
    private static boolean judge(FuzzProgram program, Function<String, GateVerdict> gate, FuzzReport report) {
        GateVerdict verdict;
        try {
            verdict = gate.apply(program.code());
        } catch (RuntimeException e) {
            report.fail(Failure.GATE_ERROR, program, e.toString());
            return false;
        }
        List<GateDiagnostic> diagnostics = verdict.diagnostics();
        if (!verdict.allowed()) {
            report.rejected(program);
        }
        if (program.inside()) {
            if (!verdict.allowed()) {
                report.fail(Failure.FALSE_REJECTION, program, diagnostics.toString());
            }
            return verdict.allowed();
        }
        if (verdict.allowed()) {
            report.fail(Failure.ESCAPE, program, "injected at " + program.construct());
            return true;
        }
        String where = "construct at " + program.construct() + ", injected text at " + program.region() + ": "
                + diagnostics;
        if (!diagnostics.stream().allMatch(GateFuzz::complete)) {
            report.fail(Failure.INCOMPLETE_DIAGNOSTIC, program, where);
        }
        List<GateDiagnostic> atConstruct = diagnostics.stream()
                .filter(d -> program.construct().contains(d.line(), d.column())).toList();
        if (atConstruct.isEmpty()) {
            report.fail(Failure.UNLOCATED, program, where);
        } else if (program.mention() != null
                && atConstruct.stream().noneMatch(d -> d.construct().contains(program.mention()))) {
            report.fail(Failure.MISNAMED, program, "expected a construct mentioning '" + program.mention() + "'; "
                    + where);
        }
        if (diagnostics.stream().anyMatch(d -> !program.region().contains(d.line(), d.column()))) {
            report.fail(Failure.STRAY_DIAGNOSTIC, program, where);
        }
        return false;
    }

    private static boolean complete(GateDiagnostic d) {
        return d.line() >= 1 && d.column() >= 1 && d.construct() != null && !d.construct().isBlank()
                && d.reason() != null && !d.reason().isBlank();
    }
}
