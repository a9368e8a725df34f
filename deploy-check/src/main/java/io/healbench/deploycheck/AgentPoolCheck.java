package io.healbench.deploycheck;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The queue convention, for every agent pool of a rendering (a Deployment labelled healbench.io/agent-pool=P):
 * bench-service publishes an attempt for pool P on the direct exchange healbench.attempts with routing key
 * attempts.P; P's workers consume the queue attempts.P bound with that key, dead-lettering to attempts.P.dlq through
 * healbench.attempts.dlx. Checked: the workers' environment names that queue; where the rendering declares the
 * broker's objects, the queues, bindings and exchanges exist with the arguments agent-service declares them with
 * (so the two declarations agree); where it has autoscalers, exactly one sizes each pool on its own queue; and no
 * pool is left with the template's placeholders.
 */
public final class AgentPoolCheck {

    public static final String POOL_LABEL = "healbench.io/agent-pool";
    static final String LLM_EGRESS_PLACEHOLDER = "192.0.2.0/32";
    private static final Pattern REFERENCE = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");
    /** What bench-service accepts as a run's agent_pool (bench.proto, CreateRunRequest). */
    private static final Pattern POOL_NAME = Pattern.compile("[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?");
    private static final String CHANNEL = "mp.messaging.incoming.attempts.";

    private final Properties agentService;

    public AgentPoolCheck(Path repositoryRoot) {
        this.agentService = load(repositoryRoot.resolve("agent-service/src/main/resources/application.properties"));
    }

    /** The pools of a rendering: pool name to its Deployments. */
    public static Map<String, List<Manifest>> pools(List<Manifest> manifests) {
        Map<String, List<Manifest>> pools = new LinkedHashMap<>();
        for (Manifest manifest : manifests) {
            String pool = manifest.labels().get(POOL_LABEL);
            if (pool != null && manifest.is("apps", "Deployment")) {
                pools.computeIfAbsent(pool, p -> new ArrayList<>()).add(manifest);
            }
        }
        return pools;
    }

    public List<String> check(List<Manifest> manifests) {
        List<String> findings = new ArrayList<>();
        String exchange = agentService.getProperty(CHANNEL + "exchange.name");
        String deadLetterExchange = agentService.getProperty(CHANNEL + "dead-letter-exchange");
        boolean declaresBrokerObjects = manifests.stream().anyMatch(m -> m.group().equals("rabbitmq.com"));
        boolean hasAutoscalers = manifests.stream().anyMatch(AgentPoolCheck::isAutoscaler);
        for (Manifest manifest : manifests) {
            String text = manifest.node().toString();
            if (text.contains("attempts.POOL")) {
                findings.add(manifest.id() + ": still holds the pool template's placeholder POOL");
            }
            if (manifest.is("networking.k8s.io", "NetworkPolicy") && text.contains(LLM_EGRESS_PLACEHOLDER)) {
                findings.add(manifest.id() + ": still allows only the placeholder " + LLM_EGRESS_PLACEHOLDER
                        + "; give the pool's LLM endpoint addresses");
            }
        }
        if (declaresBrokerObjects) {
            requireExchange(manifests, exchange, findings);
            requireExchange(manifests, deadLetterExchange, findings);
        }
        for (Map.Entry<String, List<Manifest>> pool : pools(manifests).entrySet()) {
            String name = pool.getKey();
            if (!POOL_NAME.matcher(name).matches()) {
                findings.add("pool " + name + ": not a name a run can give (lower-case letters, digits and inner hyphens, "
                        + "at most 40 characters)");
            }
            if (pool.getValue().size() != 1) {
                findings.add("pool " + name + ": " + pool.getValue().size() + " Deployments, not one");
                continue;
            }
            Manifest deployment = pool.getValue().get(0);
            String queue = "attempts." + name;
            checkWorkerEnvironment(deployment, name, queue, findings);
            if (declaresBrokerObjects) {
                checkQueues(manifests, name, queue, exchange, deadLetterExchange, findings);
            }
            if (hasAutoscalers) {
                checkAutoscaler(manifests, deployment, name, queue, findings);
            }
        }
        return findings;
    }

    private static void checkWorkerEnvironment(Manifest deployment, String pool, String queue, List<String> findings) {
        PodTemplate template = PodTemplate.of(List.of(deployment)).get(0);
        if (!pool.equals(template.labels().get(POOL_LABEL))) {
            findings.add(deployment.id() + ": its pods are not labelled " + POOL_LABEL + "=" + pool);
        }
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("HEALBENCH_AGENT_POOL", pool);
        expected.put("MP_MESSAGING_INCOMING_ATTEMPTS_QUEUE_NAME", queue);
        expected.put("MP_MESSAGING_INCOMING_ATTEMPTS_ROUTING_KEYS", queue);
        expected.put("MP_MESSAGING_INCOMING_ATTEMPTS_DEAD_LETTER_QUEUE_NAME", queue + ".dlq");
        for (JsonNode container : template.containers()) {
            Map<String, String> environment = environment(container, template.labels());
            expected.forEach((variable, value) -> {
                if (!value.equals(environment.get(variable))) {
                    findings.add(template.describe(container) + ": " + variable + " is "
                            + environment.getOrDefault(variable, "unset") + ", not " + value);
                }
            });
        }
    }

    private void checkQueues(List<Manifest> manifests, String pool, String queue, String exchange,
            String deadLetterExchange, List<String> findings) {
        JsonNode work = find(manifests, "Queue", spec -> spec.path("name").asText().equals(queue));
        if (work == null) {
            findings.add("pool " + pool + ": no Queue " + queue);
        } else {
            if (!work.path("durable").asBoolean(false)) {
                findings.add("pool " + pool + ": Queue " + queue + " is not durable, as agent-service declares it");
            }
            String declaredDlx = work.path("arguments").path("x-dead-letter-exchange").asText();
            if (!declaredDlx.equals(deadLetterExchange)) {
                findings.add("pool " + pool + ": Queue " + queue + " dead-letters to '" + declaredDlx + "', agent-service "
                        + "declares it with " + deadLetterExchange + " (RabbitMQ refuses a second, different declaration)");
            }
        }
        if (find(manifests, "Queue", spec -> spec.path("name").asText().equals(queue + ".dlq")) == null) {
            findings.add("pool " + pool + ": no Queue " + queue + ".dlq");
        }
        if (find(manifests, "Binding", spec -> binds(spec, exchange, queue, queue)) == null) {
            findings.add("pool " + pool + ": no Binding of " + queue + " to " + exchange + " with key " + queue);
        }
        if (find(manifests, "Binding", spec -> binds(spec, deadLetterExchange, queue + ".dlq", queue)) == null) {
            findings.add("pool " + pool + ": no Binding of " + queue + ".dlq to " + deadLetterExchange + " with key " + queue);
        }
    }

    private static boolean binds(JsonNode spec, String exchange, String queue, String key) {
        return spec.path("source").asText().equals(exchange) && spec.path("destination").asText().equals(queue)
                && spec.path("destinationType").asText().equals("queue") && spec.path("routingKey").asText().equals(key);
    }

    private static void checkAutoscaler(List<Manifest> manifests, Manifest deployment, String pool, String queue,
            List<String> findings) {
        List<Manifest> scalers = manifests.stream().filter(AgentPoolCheck::isAutoscaler)
                .filter(m -> m.spec().path("scaleTargetRef").path("name").asText().equals(deployment.name()))
                .toList();
        if (scalers.size() != 1) {
            findings.add("pool " + pool + ": " + scalers.size() + " autoscalers target " + deployment.id() + ", not one");
            return;
        }
        Manifest scaler = scalers.get(0);
        String scaledOn;
        if (scaler.kind().equals("ScaledObject")) {
            JsonNode trigger = scaler.spec().path("triggers").path(0);
            scaledOn = trigger.path("type").asText().equals("rabbitmq") ? trigger.path("metadata").path("queueName").asText() : "";
        } else {
            scaledOn = scaler.spec().path("metrics").path(0).path("external").path("metric").path("selector")
                    .path("matchLabels").path("queue").asText();
        }
        if (!scaledOn.equals(queue)) {
            findings.add(scaler.id() + ": sizes pool " + pool + " on queue '" + scaledOn + "', not " + queue);
        }
    }

    private static void requireExchange(List<Manifest> manifests, String name, List<String> findings) {
        JsonNode exchange = find(manifests, "Exchange", spec -> spec.path("name").asText().equals(name));
        if (exchange == null) {
            findings.add("no Exchange " + name + ", which the pools' bindings need");
        } else if (!exchange.path("type").asText().equals("direct") || !exchange.path("durable").asBoolean(false)) {
            findings.add("Exchange " + name + " is not a durable direct exchange, as the services declare it");
        }
    }

    private static boolean isAutoscaler(Manifest manifest) {
        return manifest.is("keda.sh", "ScaledObject") || manifest.is("autoscaling", "HorizontalPodAutoscaler");
    }

    private static JsonNode find(List<Manifest> manifests, String kind, Predicate<JsonNode> spec) {
        return manifests.stream().filter(m -> m.is("rabbitmq.com", kind)).map(Manifest::spec).filter(spec)
                .findFirst().orElse(null);
    }

    /**
     * A container's literal environment as the kubelet expands it: values, labels read through the downward API, and
     * $(VAR) references to variables defined before.
     */
    static Map<String, String> environment(JsonNode container, Map<String, String> podLabels) {
        Map<String, String> values = new HashMap<>();
        Pattern label = Pattern.compile("metadata\\.labels\\['([^']+)'\\]");
        for (JsonNode variable : PodTemplate.list(container.path("env"))) {
            String name = variable.path("name").asText();
            if (variable.has("value")) {
                Matcher references = REFERENCE.matcher(variable.path("value").asText());
                StringBuilder expanded = new StringBuilder();
                while (references.find()) {
                    String replacement = values.getOrDefault(references.group(1), references.group());
                    references.appendReplacement(expanded, Matcher.quoteReplacement(replacement));
                }
                references.appendTail(expanded);
                values.put(name, expanded.toString());
            } else {
                Matcher fieldRef = label.matcher(variable.path("valueFrom").path("fieldRef").path("fieldPath").asText());
                if (fieldRef.matches() && podLabels.containsKey(fieldRef.group(1))) {
                    values.put(name, podLabels.get(fieldRef.group(1)));
                }
            }
        }
        return values;
    }

    private static Properties load(Path file) {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
            properties.load(reader);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        return properties;
    }
}
