package io.healbench.bench.service;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.healbench.common.dataset.Instance;
import io.healbench.common.provenance.Provenance;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Writes a run's manifest, once, at creation: everything needed to tell what exactly ran (instance digests, interpreter
 * versions, healrt's fingerprint, the HealCore policy version, agent configuration, guard mode, repeats, the seed, the
 * project's commit, tool versions). Versioned by {@value #SCHEMA}; docs/runs.md, "The run manifest".
 */
@ApplicationScoped
public class BenchRunManifest {

    static final String SCHEMA = "healbench.run-manifest/v2";
    private static final ObjectMapper MANIFEST_READER = new ObjectMapper();

    private final ObjectMapper json;
    private final String applicationVersion;
    private final Path home;
    private final Optional<String> configuredCommit;

    public BenchRunManifest(ObjectMapper json,
            @ConfigProperty(name = "quarkus.application.version", defaultValue = "unknown") String applicationVersion,
            @ConfigProperty(name = "healbench.home", defaultValue = ".") String home,
            @ConfigProperty(name = "healbench.bench.git-commit") Optional<String> configuredCommit) {
        this.json = json;
        this.applicationVersion = applicationVersion;
        this.home = Path.of(home);
        this.configuredCommit = configuredCommit;
    }

    /** An instance's digest as a run's manifest holds it; empty when the manifest does not name the instance. */
    public static String digestOf(String manifest, String instanceId) {
        try {
            for (JsonNode instance : MANIFEST_READER.readTree(manifest).path("instances")) {
                if (instance.path("id").asText().equals(instanceId)) {
                    return instance.path("digest").asText("");
                }
            }
            return "";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a stored run manifest is not JSON", e);
        }
    }

    public String write(BenchRunSpec spec, List<Instance> instances) {
        ObjectNode root = json.createObjectNode();
        root.put("schema", SCHEMA);
        root.put("agent", spec.agent());
        root.put("guard_mode", spec.guardMode().wireName());
        root.put("repeats", spec.repeats());
        root.put("agent_pool", spec.agentPool());
        root.put("seed", spec.seed());
        root.put("git_commit", configuredCommit.orElseGet(() -> Provenance.gitCommit(home)));
        Path healrt = home.resolve("healrt").resolve("healrt");
        root.put("healrt_fingerprint", Provenance.healrtFingerprint(healrt));
        root.putObject("guard_policy").put("healcore", Provenance.healcorePolicyVersion(healrt));
        ArrayNode interpreters = root.putArray("interpreters");
        instances.stream().map(Instance::python).distinct().sorted().forEach(interpreters::add);
        try {
            root.set("agent_config", json.readTree(spec.agentConfig().json()));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an agent config is not JSON", e);
        }
        ArrayNode list = root.putArray("instances");
        for (Instance instance : instances) {
            ObjectNode node = list.addObject();
            node.put("id", instance.id());
            node.put("digest", instance.digest());
            node.put("subject", instance.subject().toString());
            node.put("codebase", instance.codebase());
            node.put("tier", instance.tier().label());
            node.put("python", instance.python());
            node.put("target_test", instance.targetTest());
            ObjectNode seeds = node.putObject("seeds");
            for (Map.Entry<String, String> seed : instance.determinism().entrySet()) {
                seeds.put(seed.getKey(), seed.getValue());
            }
        }
        ObjectNode tools = root.putObject("tools");
        tools.put("healbench", applicationVersion);
        tools.put("java", System.getProperty("java.version"));
        tools.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        try {
            return json.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a run manifest", e);
        }
    }
}
