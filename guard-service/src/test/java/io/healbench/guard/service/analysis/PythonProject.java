package io.healbench.guard.service.analysis;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.healbench.common.guard.HealAnalysis;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A small Python project written to a temporary directory and exported exactly as a heal_analysis would carry it:
 * through healrt's own exporter ({@code python3 -m healrt.astexport}), so the tests commit no generated trees.
 */
final class PythonProject {

    static final Path HOME = Path.of(System.getProperty("healbench.home", "..")).toAbsolutePath().normalize();
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<String, String> files = new LinkedHashMap<>();

    PythonProject file(String relative, String source) {
        files.put(relative, source);
        return this;
    }

    String source(String relative) {
        return files.get(relative);
    }

    /** The modules as healrt exports them, the first file first. */
    List<HealAnalysis.ModuleTree> export() {
        try {
            Path dir = Files.createTempDirectory("hb-analysis");
            try {
                List<String> command = new ArrayList<>(List.of("python3", "-m", "healrt.astexport", dir.toString()));
                for (Map.Entry<String, String> file : files.entrySet()) {
                    Path path = dir.resolve(file.getKey());
                    Files.createDirectories(path.getParent());
                    Files.writeString(path, file.getValue());
                    command.add(file.getKey());
                }
                ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
                builder.environment().put("PYTHONPATH", HOME.resolve("healrt").toString());
                Process python = builder.start();
                byte[] output = python.getInputStream().readAllBytes();
                if (!python.waitFor(60, TimeUnit.SECONDS) || python.exitValue() != 0) {
                    throw new IllegalStateException("healrt.astexport failed: " + new String(output, StandardCharsets.UTF_8));
                }
                List<HealAnalysis.ModuleTree> modules = new ArrayList<>();
                for (JsonNode module : JSON.readTree(output).get("modules")) {
                    modules.add(new HealAnalysis.ModuleTree(module.get("file").asText(), module.get("module").asText(),
                            JSON.writeValueAsString(module.get("ast"))));
                }
                return modules;
            } finally {
                try (var walk = Files.walk(dir)) {
                    walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The default protected-operation policy (healrt ships the one file), as the JSON the analysis takes. */
    static String defaultPolicy() {
        try {
            com.fasterxml.jackson.databind.JsonNode policy = new com.fasterxml.jackson.databind.ObjectMapper(
                    new com.fasterxml.jackson.dataformat.yaml.YAMLFactory()).readTree(HOME.resolve("healrt/healrt/default_policy.yaml").toFile());
            return new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(policy);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
