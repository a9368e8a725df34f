package io.healbench.guard.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.function.Function;

import io.healbench.guard.fuzz.FuzzReport.Failure;
import io.healbench.guard.service.gate.GateDiagnostic;
import io.healbench.guard.service.gate.GateVerdict;
import io.healbench.guard.service.gate.HealCoreGate;
import io.healbench.guard.service.gate.HealCorePolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CI-sized sample of the HealCore gate fuzz (the full run is `healbench guard fuzz`), and
 * proof that each of its checks can fail. Needs python3 on PATH, as healrt does.
 */
class GateFuzzTest {

    /** The CI sample; -Dhealcore.fuzz.seed=S runs another one. */
    private static final int CI_PROGRAMS = 3_000;
    private static final long CI_SEED = Long.getLong("healcore.fuzz.seed", 20_251_130L);
    private static final Path HEALCHECK = Paths.get("..", "healrt", "healrt", "healcheck.py");

    private static final HealCorePolicy POLICY = HealCorePolicy.loadDefault();
    private final HealCoreGate gate = new HealCoreGate(POLICY, HealCoreGate.DEFAULT_MAX_CODE_BYTES);

    @Test
    void noEscapesNoFalseRejectionsAndHealrtAgreesOnACiSample() throws Exception {
        FuzzReport report = fuzz(CI_PROGRAMS, CI_SEED, gate::check, HEALCHECK);

        assertTrue(report.passed(), report::summary);
        assertEquals(CI_PROGRAMS, report.programs());
        assertTrue(report.inside() > CI_PROGRAMS * 0.4 && report.outside() > CI_PROGRAMS * 0.4, report::summary);
        for (Exclusion exclusion : new ProgramGenerator(POLICY, CI_SEED).classes()) {
            assertTrue(report.byClass().get(exclusion.label()).get("programs") > 0, "never generated: " + exclusion);
        }
        assertTrue(report.byOrigin().get("grammar") > 0 && report.byOrigin().get("heal") > 0, report.byOrigin()::toString);
    }

    @Test
    void aGateThatAcceptsEverythingLetsEveryOutsideProgramEscape() throws Exception {
        FuzzReport report = fuzz(300, 7, code -> new GateVerdict(List.of(), "lax"), HEALCHECK);

        assertEquals(report.outside(), report.count(Failure.ESCAPE));
        assertEquals(report.outside(), report.count(Failure.HEALRT_DISAGREEMENT)); // healcheck still rejects them
        assertEquals(0, report.count(Failure.FALSE_REJECTION));
        assertFalse(report.passed());
    }

    @Test
    void aGateThatRejectsEverythingAtOnePlaceIsCaughtTwice() throws Exception {
        GateVerdict atStart = new GateVerdict(List.of(new GateDiagnostic(1, 1, "x", "no")), "strict");
        FuzzReport report = fuzz(300, 7, code -> atStart, HEALCHECK);

        assertEquals(report.inside(), report.count(Failure.FALSE_REJECTION));
        assertTrue(report.count(Failure.UNLOCATED) > report.outside() / 2, report::summary);
        assertEquals(0, report.count(Failure.ESCAPE));
    }

    @Test
    void diagnosticsWithoutConstructOrReasonAreIncomplete() throws Exception {
        Function<String, GateVerdict> blank = code -> {
            List<GateDiagnostic> real = gate.check(code).diagnostics();
            return new GateVerdict(real.stream().map(d -> new GateDiagnostic(d.line(), d.column(), " ", d.reason()))
                    .toList(), "blank");
        };
        FuzzReport report = fuzz(200, 7, blank, HEALCHECK);

        assertEquals(report.outside(), report.count(Failure.INCOMPLETE_DIAGNOSTIC));
        assertTrue(report.count(Failure.MISNAMED) > 0, report::summary);
    }

    @Test
    void aHealcheckThatAcceptsEverythingDisagreesOnEveryOutsideProgram(@TempDir Path dir) throws Exception {
        Path lax = dir.resolve("healcheck.py");
        Files.writeString(lax, "class HealRejected(Exception):\n    pass\n\n\ndef check_heal(tree):\n    pass\n");
        FuzzReport report = fuzz(200, 7, gate::check, lax);

        assertEquals(report.outside(), report.count(Failure.HEALRT_DISAGREEMENT));
        assertEquals(0, report.count(Failure.ESCAPE));
    }

    @Test
    void cpythonSaysWhichProgramsAreNotPython() throws Exception {
        try (PythonCheck python = new PythonCheck("python3", HEALCHECK)) {
            python.add("x = 1\n");
            python.add("x = = 1\n");
            python.add("import subprocess\n");
            PythonCheck.Answers answers = python.run();

            assertEquals(List.of(true, false, true), answers.answers().stream().map(PythonCheck.Answer::parses).toList());
            assertTrue(answers.answers().get(0).healcheckAccepts());
            assertFalse(answers.answers().get(2).healcheckAccepts());
            assertFalse(answers.pythonVersion().isBlank());
        }
    }

    @Test
    void programsAreReproducibleAndOutsideOnesMarkTheirConstruct() {
        ProgramGenerator generator = new ProgramGenerator(POLICY, 5);
        ProgramGenerator again = new ProgramGenerator(POLICY, 5);
        ProgramGenerator other = new ProgramGenerator(POLICY, 6);
        int outside = 0;
        for (int i = 0; i < 200; i++) {
            FuzzProgram program = generator.generate(i);
            assertEquals(program, again.generate(i));
            assertNotEquals(program.code(), other.generate(i).code());
            if (program.inside()) {
                assertNull(program.construct());
            } else {
                outside++;
                assertNotNull(program.construct());
                assertTrue(program.region().contains(program.construct().line(), program.construct().column()));
            }
        }
        assertTrue(outside > 50);
    }

    private static FuzzReport fuzz(int programs, long seed, Function<String, GateVerdict> gate, Path healcheck)
            throws IOException, InterruptedException {
        assertTrue(Files.isRegularFile(HEALCHECK), "healrt's re-check is missing: " + HEALCHECK.toAbsolutePath());
        GateFuzz.Options options = new GateFuzz.Options(programs, seed, "python3", healcheck, 3, null);
        return GateFuzz.run(options, new ProgramGenerator(POLICY, seed), gate, POLICY.version());
    }
}
