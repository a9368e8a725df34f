package io.healbench.deploycheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The pools follow the queue convention (bench-service publishes on healbench.attempts with key attempts.<pool>;
 * the pool's workers consume attempts.<pool>), each pool scales on its own queue, and adding a pool is one file.
 */
class AgentPoolTest {

    private static final String SECOND = "toolloop-claude-sonnet-4-5";

    @Test
    void prodRunsTheDefaultPoolAndTheSecondBackbonesPool() {
        assertEquals(Set.of("default", SECOND), AgentPoolCheck.pools(Renderings.prod()).keySet());
        assertEquals(Set.of("default"), AgentPoolCheck.pools(Renderings.dev()).keySet());
        assertEquals(List.of(), new AgentPoolCheck(Renderings.root()).check(Renderings.prod()));
        assertEquals(List.of(), new AgentPoolCheck(Renderings.root()).check(Renderings.dev()));
    }

    @Test
    void theSecondBackbonesDeploymentScaledObjectAndQueueAreRendered() {
        List<Manifest> prod = Renderings.prod();
        Manifest deployment = Renderings.find(prod, "Deployment", "agent-" + SECOND);
        Manifest scaledObject = Renderings.find(prod, "ScaledObject", "agent-" + SECOND);
        Manifest queue = Renderings.find(prod, "Queue", "attempts-" + SECOND);
        Manifest deadLetters = Renderings.find(prod, "Queue", "attempts-dlq-" + SECOND);
        assertEquals("attempts." + SECOND, queue.spec().path("name").asText());
        assertEquals("attempts." + SECOND + ".dlq", deadLetters.spec().path("name").asText());
        assertEquals(deployment.name(), scaledObject.spec().path("scaleTargetRef").path("name").asText());
        assertEquals("attempts." + SECOND, scaledObject.spec().path("triggers").path(0).path("metadata").path("queueName").asText());
        assertEquals(0, scaledObject.spec().path("minReplicaCount").asInt());
        JsonNode container = deployment.spec().path("template").path("spec").path("containers").path(0);
        assertEquals(Set.of("ANTHROPIC_API_KEY"), llmKeys(container));
        Manifest egress = Renderings.find(prod, "NetworkPolicy", "agent-llm-egress-" + SECOND);
        assertTrue(egress.spec().toString().contains("160.79.104.0/23"), egress.spec().toString());
    }

    @Test
    void theDefaultPoolHoldsNoLlmKeyAndNeverScalesToZero() {
        List<Manifest> prod = Renderings.prod();
        JsonNode container = Renderings.find(prod, "Deployment", "agent-default")
                .spec().path("template").path("spec").path("containers").path(0);
        assertEquals(Set.of(), llmKeys(container));
        assertEquals(1, Renderings.find(prod, "ScaledObject", "agent-default").spec().path("minReplicaCount").asInt());
        assertFalse(prod.stream().anyMatch(m -> m.name().equals("agent-llm-egress-default")));
    }

    @Test
    void aNewPoolIsOneFile() {
        String pool = "mini-gpt-4-1";
        List<Manifest> rendering = Renderings.prodWithPool(pool, Renderings.poolFile(pool));
        assertEquals(Set.of("default", SECOND, pool), AgentPoolCheck.pools(rendering).keySet());
        Renderings.find(rendering, "Deployment", "agent-" + pool);
        assertEquals("attempts." + pool, Renderings.find(rendering, "ScaledObject", "agent-" + pool)
                .spec().path("triggers").path(0).path("metadata").path("queueName").asText());
        assertEquals("attempts." + pool, Renderings.find(rendering, "Queue", "attempts-" + pool).spec().path("name").asText());
        assertEquals(List.of(), DeployCheck.of(Renderings.root()).check(rendering));
    }

    @Test
    void aPoolOnTheHpaAlternativeScalesOnItsQueueWithoutKeda() {
        String pool = "replay-hpa";
        List<Manifest> rendering = Renderings.prodWithPool(pool, Renderings.poolFile(pool, "hpa"));
        Manifest hpa = Renderings.find(rendering, "HorizontalPodAutoscaler", "agent-" + pool);
        assertEquals("agent-" + pool, hpa.spec().path("scaleTargetRef").path("name").asText());
        assertEquals("attempts." + pool, hpa.spec().path("metrics").path(0).path("external").path("metric")
                .path("selector").path("matchLabels").path("queue").asText());
        assertFalse(rendering.stream().anyMatch(m -> m.kind().equals("ScaledObject") && m.name().equals("agent-" + pool)));
    }

    @Test
    void aScaledObjectOnAnotherPoolsQueueIsCaught() {
        List<Manifest> rendering = Renderings.copy(Renderings.prod());
        ObjectNode metadata = (ObjectNode) Renderings.find(rendering, "ScaledObject", "agent-" + SECOND)
                .node().path("spec").path("triggers").path(0).path("metadata");
        metadata.put("queueName", "attempts.default");
        assertEquals(List.of("ScaledObject/agent-" + SECOND + ": sizes pool " + SECOND + " on queue 'attempts.default', not attempts." + SECOND),
                new AgentPoolCheck(Renderings.root()).check(rendering));
    }

    @Test
    void aWorkerConsumingAnotherQueueIsCaught() {
        List<Manifest> rendering = Renderings.copy(Renderings.prod());
        JsonNode env = Renderings.find(rendering, "Deployment", "agent-default")
                .node().path("spec").path("template").path("spec").path("containers").path(0).path("env");
        for (JsonNode variable : env) {
            if (variable.path("name").asText().equals("MP_MESSAGING_INCOMING_ATTEMPTS_QUEUE_NAME")) {
                ((ObjectNode) variable).put("value", "attempts.shared");
            }
        }
        assertEquals(List.of("Deployment/agent-default container agent: MP_MESSAGING_INCOMING_ATTEMPTS_QUEUE_NAME is attempts.shared, not attempts.default"),
                new AgentPoolCheck(Renderings.root()).check(rendering));
    }

    @Test
    void aQueueDeclaredWithOtherArgumentsThanTheWorkersIsCaught() {
        List<Manifest> rendering = Renderings.copy(Renderings.prod());
        ((ObjectNode) Renderings.find(rendering, "Queue", "attempts-default").node().path("spec").path("arguments"))
                .put("x-dead-letter-exchange", "healbench.dlx");
        List<String> findings = new AgentPoolCheck(Renderings.root()).check(rendering);
        assertEquals(1, findings.size(), findings.toString());
        assertTrue(findings.get(0).startsWith("pool default: Queue attempts.default dead-letters to 'healbench.dlx'"), findings.get(0));
    }

    @Test
    void aPoolNameARunCannotGiveIsCaught() {
        List<Manifest> rendering = Manifests.parse("""
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: agent-gpt
                  labels: {healbench.io/agent-pool: GPT_4.1}
                spec:
                  selector:
                    matchLabels: {healbench.io/agent-pool: GPT_4.1}
                  template:
                    metadata:
                      labels: {healbench.io/agent-pool: GPT_4.1}
                    spec:
                      containers: [{name: agent, image: healbench/agent-service:0.1.0}]
                """);
        assertTrue(new AgentPoolCheck(Renderings.root()).check(rendering).contains("pool GPT_4.1: not a name a run can give "
                + "(lower-case letters, digits and inner hyphens, at most 40 characters)"));
    }

    @Test
    void thePoolTemplateAloneStillHoldsItsPlaceholders() {
        List<String> findings = new AgentPoolCheck(Renderings.root()).check(Renderings.build(Renderings.k8s().resolve("agent-pool")));
        assertTrue(findings.contains("Queue/attempts: still holds the pool template's placeholder POOL"), findings.toString());
        assertTrue(findings.contains("ScaledObject/agent: still holds the pool template's placeholder POOL"), findings.toString());
    }

    /** The LLM provider keys a worker gets: variables from the Secret healbench-llm-keys. */
    private static Set<String> llmKeys(JsonNode container) {
        Set<String> keys = new TreeSet<>();
        for (JsonNode variable : container.path("env")) {
            if (variable.path("valueFrom").path("secretKeyRef").path("name").asText().equals("healbench-llm-keys")) {
                keys.add(variable.path("name").asText());
            }
        }
        return keys;
    }
}
