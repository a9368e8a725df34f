package io.healbench.deploycheck;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A pod some workload of a rendering will run: its labels and spec, and the workload that owns it. */
public record PodTemplate(Manifest owner, JsonNode metadata, JsonNode spec) {

    /** Every pod template of a rendering: Deployments, StatefulSets, DaemonSets, ReplicaSets, Jobs, CronJobs, Pods. */
    public static List<PodTemplate> of(List<Manifest> manifests) {
        List<PodTemplate> templates = new ArrayList<>();
        for (Manifest manifest : manifests) {
            JsonNode template = switch (manifest.kind()) {
                case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job" -> manifest.spec().path("template");
                case "CronJob" -> manifest.spec().path("jobTemplate").path("spec").path("template");
                case "Pod" -> manifest.node();
                default -> null;
            };
            if (template != null) {
                templates.add(new PodTemplate(manifest, template.path("metadata"), template.path("spec")));
            }
        }
        return templates;
    }

    public String workload() {
        return owner.name();
    }

    public String namespace() {
        return owner.namespace();
    }

    public Map<String, String> labels() {
        return Manifest.strings(metadata.path("labels"));
    }

    /** The long-running containers. */
    public List<JsonNode> containers() {
        return list(spec.path("containers"));
    }

    public List<JsonNode> initContainers() {
        return list(spec.path("initContainers"));
    }

    public List<JsonNode> allContainers() {
        List<JsonNode> all = new ArrayList<>(initContainers());
        all.addAll(containers());
        return all;
    }

    /** How findings name a container: {@code Deployment/bench-service container bench-service}. */
    public String describe(JsonNode container) {
        return owner.id() + " container " + container.path("name").asText();
    }

    static List<JsonNode> list(JsonNode array) {
        List<JsonNode> items = new ArrayList<>();
        if (array != null && array.isArray()) {
            array.forEach(items::add);
        }
        return items;
    }
}
