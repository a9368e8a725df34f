package io.healbench.guard.fuzz;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

import io.healbench.guard.service.gate.HealCoreGate;
import io.healbench.guard.service.gate.HealCorePolicy;

/**
 * {@code healbench guard fuzz --programs N --seed S [--json] [--samples K] [--show INDEX]
 * [--python PATH] [--healcheck PATH]}: fuzzes the HealCore gate and prints the counts. With
 * --json the last stdout line is the report as one JSON object. --show prints one program of the
 * run (its label and where its construct was injected) instead of running. Exit status: 0 when
 * nothing failed, 1 when something did, 2 on a usage error.
 */
public final class GateFuzzCommand {

    private static final String USAGE = "usage: healbench guard fuzz [--programs N] [--seed S] [--json] [--samples K]"
            + " [--show INDEX] [--python PATH] [--healcheck PATH]";

    private GateFuzzCommand() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        int programs = 100_000;
        long seed = 1;
        boolean json = false;
        int samples = 5;
        Integer show = null;
        String python = "python3";
        Path healcheck = null;
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--programs" -> programs = Integer.parseInt(args[++i]);
                    case "--seed" -> seed = Long.parseLong(args[++i]);
                    case "--json" -> json = true;
                    case "--samples" -> samples = Integer.parseInt(args[++i]);
                    case "--show" -> show = Integer.parseInt(args[++i]);
                    case "--python" -> python = args[++i];
                    case "--healcheck" -> healcheck = Paths.get(args[++i]);
                    default -> throw new IllegalArgumentException("unknown argument " + args[i]);
                }
            }
            if (programs <= 0 || samples < 0) {
                throw new IllegalArgumentException("--programs must be positive and --samples not negative");
            }
        } catch (RuntimeException e) {
            System.err.println(e.getMessage() + "\n" + USAGE);
            System.exit(2);
        }
        HealCorePolicy policy = HealCorePolicy.loadDefault();
        ProgramGenerator generator = new ProgramGenerator(policy, seed);
        if (show != null) {
            FuzzProgram program = generator.generate(show);
            out.printf("program %d of seed %d: %s (%s), construct at %s, mention %s%n%s%n", program.index(), seed,
                    program.label(), program.origin(), program.construct(), program.mention(), program.code());
            return;
        }
        HealCoreGate gate = new HealCoreGate(policy, HealCoreGate.DEFAULT_MAX_CODE_BYTES);
        GateFuzz.Options options = new GateFuzz.Options(programs, seed, python,
                healcheck != null ? healcheck : defaultHealcheck(), samples, System.err);
        FuzzReport report = GateFuzz.run(options, generator, gate::check, gate.version());
        out.print(report.summary());
        if (json) {
            out.println(report.toJson().toString());
        }
        System.exit(report.passed() ? 0 : 1);
    }

    /** healrt/healrt/healcheck.py under $HEALBENCH_HOME, or under the working directory or one of its parents. */
    private static Path defaultHealcheck() {
        Path relative = Paths.get("healrt", "healrt", "healcheck.py");
        String home = System.getenv("HEALBENCH_HOME");
        if (home != null && !home.isBlank()) {
            return Paths.get(home).resolve(relative);
        }
        for (Path dir = Paths.get("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve(relative))) {
                return dir.resolve(relative);
            }
        }
        return relative;
    }
}
