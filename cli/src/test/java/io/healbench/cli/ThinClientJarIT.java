package io.healbench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.testsupport.JavaCommand;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The packaged remote client (target/cli.jar with target/lib) is thin: it ships none of the services' machinery, and it
 * runs on its own.
 */
class ThinClientJarIT {

    private static final Path TARGET = Path.of("target");

    /** What only the services need: the ORM, the HealCore parser, the embedded database, and the services' own code. */
    private static final List<String> SERVICE_ONLY = List.of("org/hibernate/", "org/antlr/", "io/zonky/",
            "io/healbench/guard/", "io/healbench/sandbox/", "io/healbench/agent/", "io/healbench/bench/");

    @Test
    void theClientJarAndItsLibrariesCarryNoServiceClasses() throws IOException {
        List<Path> jars = new ArrayList<>(List.of(TARGET.resolve("cli.jar")));
        try (Stream<Path> lib = Files.list(TARGET.resolve("lib"))) {
            lib.filter(p -> p.toString().endsWith(".jar")).forEach(jars::add);
        }
        assertTrue(jars.size() > 10, "the client's libraries are in target/lib: " + jars);
        List<String> offending = new ArrayList<>();
        for (Path jar : jars) {
            try (JarFile file = new JarFile(jar.toFile())) {
                file.stream().map(e -> e.getName())
                        .filter(name -> SERVICE_ONLY.stream().anyMatch(name::startsWith))
                        .findFirst().ifPresent(name -> offending.add(jar.getFileName() + ": " + name));
            }
        }
        assertEquals(List.of(), offending);
    }

    @Test
    void theClientRunsOnItsOwnAndAsksForAServer() throws Exception {
        Process client = new ProcessBuilder(JavaCommand.forJar(TARGET.resolve("cli.jar"), List.of(), List.of("runs", "list")))
                .redirectErrorStream(true).start();
        String output = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(client.waitFor(60, TimeUnit.SECONDS));
        assertEquals(ExitStatus.USAGE, client.exitValue(), output);
        assertTrue(output.contains("give --server HOST:PORT"), output);
    }
}
