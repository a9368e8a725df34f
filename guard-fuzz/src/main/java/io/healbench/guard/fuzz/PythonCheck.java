package io.healbench.guard.fuzz;

import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Runs CPython's parser and healrt's re-check (healcheck.py) over every generated program, in one
 * batch python3 process: programs are written one JSON string per line to a temporary file as they
 * are generated, then checked together.
 */
final class PythonCheck implements Closeable {

    /** CPython's answer for one program: whether it parses, and healcheck's verdict when it does. */
    record Answer(boolean parses, boolean healcheckAccepts, String message) {
    }

    /** The interpreter's version and the answers, in program order. */
    record Answers(String pythonVersion, List<Answer> answers) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SCRIPT = "healcore-fuzz/crosscheck.py";

    private final String python;
    private final Path healcheck;
    private final Path directory;
    private final Path programs;
    private final Writer out;
    private int count;

    PythonCheck(String python, Path healcheck) throws IOException {
        if (!Files.isRegularFile(healcheck)) {
            throw new IOException("healrt's re-check not found: " + healcheck);
        }
        this.python = python;
        this.healcheck = healcheck;
        this.directory = Files.createTempDirectory("healcore-fuzz");
        this.programs = directory.resolve("programs.jsonl");
        this.out = Files.newBufferedWriter(programs, StandardCharsets.UTF_8);
    }

    void add(String code) {
        try {
            out.write(JSON.writeValueAsString(code));
            out.write('\n');
            count++;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Checks every program added; the timeout grows with their number. */
    Answers run() throws IOException, InterruptedException {
        out.close();
        Path script = directory.resolve("crosscheck.py");
        try (InputStream in = PythonCheck.class.getClassLoader().getResourceAsStream(SCRIPT)) {
            if (in == null) {
                throw new IOException("missing resource " + SCRIPT);
            }
            Files.copy(in, script);
        }
        Path stdout = directory.resolve("answers.jsonl");
        Path stderr = directory.resolve("stderr.txt");
        Process process = new ProcessBuilder(python, script.toString(), programs.toString(), healcheck.toString())
                .redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
        long timeoutSeconds = 120 + count / 50L;
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException("python check timed out after " + timeoutSeconds + " s");
        }
        if (process.exitValue() != 0) {
            throw new IOException("python check failed (exit " + process.exitValue() + "): "
                    + Files.readString(stderr, StandardCharsets.UTF_8));
        }
        List<Answer> answers = new ArrayList<>(count);
        String version;
        try (BufferedReader reader = Files.newBufferedReader(stdout, StandardCharsets.UTF_8)) {
            version = JSON.readTree(reader.readLine()).path("python").asText();
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                JsonNode answer = JSON.readTree(line);
                boolean parses = answer.path("parses").asBoolean();
                answers.add(new Answer(parses, "accepted".equals(answer.path("healcheck").asText()),
                        parses ? answer.path("message").asText() : answer.path("error").asText()));
            }
        }
        if (answers.size() != count) {
            throw new IOException("python check answered " + answers.size() + " of " + count + " programs");
        }
        return new Answers(version, answers);
    }

    @Override
    public void close() throws IOException {
        out.close();
        try (var files = Files.list(directory)) {
            for (Path file : files.toList()) {
                Files.delete(file);
            }
        }
        Files.delete(directory);
    }
}
