package io.healbench.deploycheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Each pod rule can fail: a rendering broken in one place gets exactly the finding about that place. */
class PodPolicyTest {

    private static PodPolicyCheck check() {
        return new PodPolicyCheck(Renderings.root(),
                PolicyExceptions.read(Renderings.k8s().resolve("policy-exceptions.yaml")));
    }

    @Test
    void aPodWithoutProbesIsCaught() {
        assertEquals(List.of("Deployment/probeless container app: no livenessProbe",
                        "Deployment/probeless container app: no readinessProbe"),
                new PodPolicyCheck(Renderings.root(), PolicyExceptions.none()).check(Renderings.broken("pod-without-probes.yaml")));
    }

    @Test
    void aContainerWithoutResourcesIsCaught() {
        assertFinding(deployment("guard-service", d -> container(d).remove("resources")),
                "Deployment/guard-service container guard-service: no requests.cpu",
                "Deployment/guard-service container guard-service: no requests.memory",
                "Deployment/guard-service container guard-service: no limits.memory");
    }

    @Test
    void aProbeOnAnotherPortThanTheServicesHttpPortIsCaught() {
        assertFinding(deployment("bench-service",
                        d -> ((ObjectNode) container(d).path("readinessProbe").path("httpGet")).put("port", 9000)),
                "Deployment/bench-service container bench-service: readinessProbe checks port 9000, not the service's HTTP port 8104");
    }

    @Test
    void aProbeOnAnotherPathIsCaught() {
        assertFinding(deployment("guard-service",
                        d -> ((ObjectNode) container(d).path("livenessProbe").path("httpGet")).put("path", "/q/health")),
                "Deployment/guard-service container guard-service: livenessProbe checks /q/health, not /q/health/live");
    }

    @Test
    void rootWithoutAnExceptionIsCaught() {
        assertFinding(deployment("bench-service", d -> ((ObjectNode) d.path("spec").path("template").path("spec")
                        .path("securityContext")).put("runAsUser", 0)),
                "Deployment/bench-service container bench-service: may run as root (set runAsNonRoot: true and a non-zero runAsUser)");
    }

    @Test
    void anUnconfinedSeccompProfileWithoutAnExceptionIsCaught() {
        assertFinding(deployment("guard-service", d -> ((ObjectNode) container(d).path("securityContext"))
                        .putObject("seccompProfile").put("type", "Unconfined")),
                "Deployment/guard-service container guard-service: has seccomp profile Unconfined (RuntimeDefault or Localhost)");
    }

    @Test
    void aCapabilityTheExceptionDoesNotGrantIsCaught() {
        assertFinding(deployment("sandbox-service", d -> ((ArrayNode) container(d).path("securityContext")
                        .path("capabilities").path("add")).add("NET_RAW")),
                "Deployment/sandbox-service container sandbox-service: adds capabilities [NET_RAW] that policy-exceptions.yaml does not grant it");
    }

    @Test
    void aHostPathVolumeIsCaught() {
        assertFinding(deployment("sandbox-service", d -> ((ArrayNode) d.path("spec").path("template").path("spec").path("volumes"))
                        .addObject().put("name", "host-cache").putObject("hostPath").put("path", "/var/cache/healbench")),
                "Deployment/sandbox-service: mounts the node's filesystem (hostPath volume host-cache)");
    }

    @Test
    void aMountedServiceAccountTokenIsCaught() {
        assertFinding(deployment("guard-service", d -> ((ObjectNode) d.path("spec").path("template").path("spec"))
                        .put("automountServiceAccountToken", true)),
                "Deployment/guard-service: mounts a service account token (set automountServiceAccountToken: false; no HealBench pod calls the Kubernetes API)");
    }

    @Test
    void anExceptionNoPodNeedsIsReported() {
        PolicyExceptions exceptions = PolicyExceptions.read(Renderings.k8s().resolve("policy-exceptions.yaml"));
        new PodPolicyCheck(Renderings.root(), exceptions).check(Renderings.prod());
        // prod has no in-cluster PostgreSQL or RabbitMQ, so their exceptions are unused there.
        assertTrue(exceptions.unused().contains("postgres/postgres:writable-root-filesystem"), exceptions.unused().toString());
        assertTrue(exceptions.unused().contains("rabbitmq/rabbitmq:writable-root-filesystem"), exceptions.unused().toString());
    }

    private static List<Manifest> deployment(String name, Consumer<ObjectNode> breakIt) {
        List<Manifest> rendering = Renderings.copy(Renderings.prod());
        breakIt.accept((ObjectNode) Renderings.find(rendering, "Deployment", name).node());
        return rendering;
    }

    private static ObjectNode container(ObjectNode deployment) {
        return (ObjectNode) deployment.path("spec").path("template").path("spec").path("containers").path(0);
    }

    private static void assertFinding(List<Manifest> rendering, String... expected) {
        assertEquals(List.of(expected), check().check(rendering));
    }
}
