package io.healbench.agent.service.replay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.healbench.agent.service.AgentDecision.Heal;
import io.healbench.common.heal.Resume;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The recorded heals of one instance, in heal-point order: {@code <dir>/<instance-id>.json} holding
 * {@code {"heals": [{"code": "...", "resume": "skip|retry|return"}, ...]}}. Unknown fields are refused
 * so that a misspelt one is not silently ignored.
 */
public record HealSet(Path file, List<Heal> heals) {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> TOP_FIELDS = Set.of("heals");
    private static final Set<String> HEAL_FIELDS = Set.of("code", "resume");

    public HealSet {
        heals = List.copyOf(heals);
    }

    /** The heal set of {@code instanceId} in {@code dir}. */
    public static HealSet forInstance(Path dir, String instanceId) {
        if (instanceId.contains("/") || instanceId.contains("\\") || instanceId.startsWith(".")) {
            throw new HealSetException("instance id '" + instanceId + "' cannot name a heal set file in " + dir);
        }
        return read(dir.resolve(instanceId + ".json"));
    }

    public static HealSet read(Path file) {
        JsonNode root;
        try {
            root = JSON.readTree(Files.readString(file));
        } catch (NoSuchFileException e) {
            throw new HealSetException("no recorded heals: " + file + " does not exist", e);
        } catch (JsonProcessingException e) {
            throw new HealSetException(file + " is not JSON: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new HealSetException("cannot read " + file + ": " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new HealSetException(file + ": must be a JSON object with a 'heals' array");
        }
        refuseUnknownFields(file, root, TOP_FIELDS, "");
        JsonNode list = root.get("heals");
        if (list == null || !list.isArray()) {
            throw new HealSetException(file + ": 'heals' must be an array of {\"code\", \"resume\"} objects");
        }
        List<Heal> heals = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            heals.add(heal(file, list.get(i), "heals[" + i + "]"));
        }
        return new HealSet(file, heals);
    }

    private static Heal heal(Path file, JsonNode node, String where) {
        if (!node.isObject()) {
            throw new HealSetException(file + ": " + where + " must be an object with 'code' and 'resume'");
        }
        refuseUnknownFields(file, node, HEAL_FIELDS, where + ".");
        JsonNode code = node.get("code");
        if (code == null || !code.isTextual() || code.asText().isBlank()) {
            throw new HealSetException(file + ": " + where + ".code must be a non-empty string of HealCore code");
        }
        JsonNode resume = node.get("resume");
        if (resume == null || !resume.isTextual()) {
            throw new HealSetException(file + ": " + where + ".resume is missing or not a string");
        }
        return new Heal(code.asText(), resume(file, resume.asText(), where));
    }

    private static Resume resume(Path file, String text, String where) {
        try {
            return Resume.parse(text);
        } catch (IllegalArgumentException unknown) {
            throw new HealSetException(file + ": " + where + "." + unknown.getMessage());
        }
    }

    private static void refuseUnknownFields(Path file, JsonNode node, Set<String> known, String prefix) {
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!known.contains(name)) {
                throw new HealSetException(file + ": unknown field '" + prefix + name + "' (expected "
                        + known.stream().sorted().map(f -> prefix + f).collect(Collectors.joining(", ")) + ")");
            }
        }
    }
}
