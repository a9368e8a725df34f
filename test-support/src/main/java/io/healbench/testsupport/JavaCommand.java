package io.healbench.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a JVM that a test starts from a packaged jar: the test's own {@code java}, the JVM options, the
 * jar and its arguments.
 *
 * <p>Each such JVM lives for seconds or minutes, beside others, on a runner with few cores, and spends most of its CPU
 * on starting: loading classes and compiling them. So it runs with the options in {@code short-lived-jvm.options} (the
 * C1 compiler only and the serial collector), which cut that CPU; {@code bench/jvm_start.py} measures by how much. The
 * product's launcher leaves the JVM's defaults to the user, whose runs may last long enough for C2 to pay off.
 */
public final class JavaCommand {

    private static final List<String> SHORT_LIVED = readOptions("short-lived-jvm.options");

    /** {@code java SHORT_LIVED jvmOptions -jar jar arguments}. */
    public static List<String> forJar(Path jar, List<String> jvmOptions, List<String> arguments) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(SHORT_LIVED);
        command.addAll(jvmOptions);
        command.add("-jar");
        command.add(jar.toString());
        command.addAll(arguments);
        return command;
    }

    private static List<String> readOptions(String resource) {
        try (InputStream in = JavaCommand.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("test-support's jar lacks " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(String::strip)
                    .filter(line -> !line.isEmpty()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private JavaCommand() {}
}
