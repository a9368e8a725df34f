package io.healbench.deploycheck;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Every Service reaches a pod of the rendering: its selector matches some pod template, and each of its ports'
 * targetPort is a port those pods declare (by name or number). A Service whose pods were relabelled, or whose port
 * name was misspelled, renders and applies fine and then answers nothing.
 */
public final class ServiceCheck {

    public List<String> check(List<Manifest> manifests) {
        List<String> findings = new ArrayList<>();
        List<PodTemplate> pods = PodTemplate.of(manifests);
        for (Manifest service : manifests) {
            Map<String, String> selector = Manifest.strings(service.spec().path("selector"));
            if (!service.is("", "Service") || selector.isEmpty()) {
                continue;
            }
            List<PodTemplate> selected = pods.stream()
                    .filter(pod -> pod.labels().entrySet().containsAll(selector.entrySet()))
                    .toList();
            if (selected.isEmpty()) {
                findings.add(service.id() + ": its selector " + selector + " matches no pod of the rendering");
                continue;
            }
            for (JsonNode port : PodTemplate.list(service.spec().path("ports"))) {
                JsonNode target = port.has("targetPort") ? port.path("targetPort") : port.path("port");
                for (PodTemplate pod : selected) {
                    boolean declared = pod.containers().stream().anyMatch(container -> declares(container, target));
                    if (!declared) {
                        findings.add(service.id() + ": port " + port.path("name").asText(port.path("port").asText())
                                + " targets " + target.asText() + ", which " + pod.owner().id() + " does not declare");
                    }
                }
            }
        }
        return findings;
    }

    private static boolean declares(JsonNode container, JsonNode target) {
        return PodTemplate.list(container.path("ports")).stream().anyMatch(port -> target.isInt()
                ? port.path("containerPort").asInt() == target.asInt()
                : port.path("name").asText().equals(target.asText()));
    }
}
