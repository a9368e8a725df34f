package io.healbench.deploycheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.healbench.deploycheck.NetworkPolicies.Address;
import io.healbench.deploycheck.NetworkPolicies.Peer;
import io.healbench.deploycheck.NetworkPolicies.Pod;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The network map of docs/deploy.md, computed from the rendered NetworkPolicies: every connection the policies allow
 * between the rendering's pods, the pods outside it (the ingress controller, cluster DNS, another namespace) and
 * addresses outside the cluster, on every port those declare (plus 22, to catch a rule without ports). The map must
 * be exactly the one below: a policy that opens one more path fails the build as surely as one that closes a needed one.
 */
class NetworkPolicyTest {

    private static final Pod INGRESS_CONTROLLER =
            Pod.outside("ingress-controller", "ingress-nginx", Map.of("app.kubernetes.io/name", "ingress-nginx"));
    private static final Pod CLUSTER_DNS = Pod.outside("kube-dns", "kube-system", Map.of("k8s-app", "kube-dns"));
    private static final Pod OTHER_NAMESPACE = Pod.outside("other-namespace", "other", Map.of("app", "other"));
    private static final Address INTERNET = new Address("internet", "203.0.113.10");
    private static final Address ANTHROPIC = new Address("anthropic", "160.79.104.10");
    private static final Address BROKER = new Address("broker", "10.20.1.10");
    private static final Address DATABASE = new Address("database", "10.20.2.10");

    private static final List<String> PROD_POOLS = List.of("agent-default", "agent-toolloop-claude-sonnet-4-5");

    @Test
    void prodAllowsExactlyTheDesignsCalls() {
        Set<String> expected = clusterDnsCalls(List.of("guard-service", "sandbox-service", "bench-service", "keycloak",
                "agent-default", "agent-toolloop-claude-sonnet-4-5"));
        expected.add("sandbox-service -> guard-service:8101/TCP");
        expected.add("sandbox-service -> broker:5671/TCP");
        expected.add("bench-service -> keycloak:8080/TCP");
        expected.add("bench-service -> broker:5671/TCP");
        expected.add("bench-service -> database:5432/TCP");
        for (String pool : PROD_POOLS) {
            expected.add(pool + " -> sandbox-service:8102/TCP");
            expected.add(pool + " -> bench-service:8104/TCP");
            expected.add(pool + " -> keycloak:8080/TCP");
            expected.add(pool + " -> broker:5671/TCP");
        }
        expected.add("agent-toolloop-claude-sonnet-4-5 -> anthropic:443/TCP");
        expected.add("keycloak -> database:5432/TCP");
        expected.add("keycloak -> keycloak:7800/TCP");
        expected.add("ingress-controller -> bench-service:8104/TCP");
        expected.add("ingress-controller -> agent-default:8103/TCP");
        expected.add("ingress-controller -> keycloak:8080/TCP");
        assertEquals(expected, allowed(Renderings.prod(), List.of(INTERNET, ANTHROPIC, BROKER, DATABASE)));
    }

    @Test
    void devAllowsExactlyTheDesignsCalls() {
        Set<String> expected = clusterDnsCalls(List.of("guard-service", "sandbox-service", "bench-service", "keycloak",
                "agent-default", "postgres", "rabbitmq"));
        expected.add("sandbox-service -> guard-service:8101/TCP");
        expected.add("sandbox-service -> rabbitmq:5672/TCP");
        expected.add("bench-service -> keycloak:8080/TCP");
        expected.add("bench-service -> rabbitmq:5672/TCP");
        expected.add("bench-service -> postgres:5432/TCP");
        expected.add("agent-default -> sandbox-service:8102/TCP");
        expected.add("agent-default -> bench-service:8104/TCP");
        expected.add("agent-default -> keycloak:8080/TCP");
        expected.add("agent-default -> rabbitmq:5672/TCP");
        expected.add("ingress-controller -> bench-service:8104/TCP");
        expected.add("ingress-controller -> agent-default:8103/TCP");
        expected.add("ingress-controller -> keycloak:8080/TCP");
        assertEquals(expected, allowed(Renderings.dev(), List.of(INTERNET, ANTHROPIC)));
    }

    /** Each pod's name lookups, over UDP and TCP: a map of allowed calls to start from. */
    private static Set<String> clusterDnsCalls(List<String> pods) {
        Set<String> calls = new TreeSet<>();
        for (String pod : pods) {
            calls.add(pod + " -> kube-dns:53/UDP");
            calls.add(pod + " -> kube-dns:53/TCP");
        }
        return calls;
    }

    /**
     * The other direction of the map's proof: every call a service's application.properties configures (its gRPC
     * clients' ports, its broker channels, its database, its OIDC tenants) is allowed from each of its pods in dev,
     * where every peer is a pod of the rendering.
     */
    @Test
    void everyCallTheServicesConfigurationMakesIsAllowed() throws IOException {
        List<Manifest> dev = Renderings.dev();
        NetworkPolicies policies = NetworkPolicies.of(dev);
        List<String> refused = new ArrayList<>();
        int calls = 0;
        for (PodTemplate template : PodTemplate.of(dev)) {
            String image = template.containers().get(0).path("image").asText();
            Path file = Renderings.root().resolve(image.replaceFirst("^healbench/", "").replaceFirst(":.*$", ""))
                    .resolve("src/main/resources/application.properties");
            if (!image.startsWith("healbench/") || !Files.isRegularFile(file)) {
                continue;
            }
            Properties properties = new Properties();
            try (Reader reader = Files.newBufferedReader(file)) {
                properties.load(reader);
            }
            Pod from = pod(dev, template.workload());
            for (String key : properties.stringPropertyNames()) {
                if (key.matches("quarkus\\.grpc\\.clients\\.[a-z-]+\\.port")) {
                    int port = Integer.parseInt(properties.getProperty(key).strip());
                    calls++;
                    if (!policies.allows(from, servingPort(dev, port), port, "TCP")) {
                        refused.add(template.workload() + " -> " + key + " " + port);
                    }
                }
            }
            for (String[] peer : new String[][] {{"mp.messaging.", "rabbitmq", "5672"},
                    {"quarkus.datasource.reactive.url", "postgres", "5432"},
                    {"quarkus.oidc.resolve-tenants-with-issuer", "keycloak", "8080"}}) {
                if (properties.stringPropertyNames().stream().anyMatch(key -> key.startsWith(peer[0]))) {
                    calls++;
                    if (!policies.allows(from, pod(dev, peer[1]), Integer.parseInt(peer[2]), "TCP")) {
                        refused.add(template.workload() + " -> " + peer[1] + " (" + peer[0] + ")");
                    }
                }
            }
        }
        // sandbox: guard, broker; agent pools: sandbox, bench, broker, Keycloak; bench: broker, database, Keycloak.
        assertTrue(calls >= 9, "found only " + calls + " configured calls");
        assertEquals(List.of(), refused);
    }

    /** The pod of the rendering that declares {@code port}. */
    private static Pod servingPort(List<Manifest> rendering, int port) {
        for (PodTemplate template : PodTemplate.of(rendering)) {
            for (JsonNode container : template.containers()) {
                for (JsonNode declared : container.path("ports")) {
                    if (declared.path("containerPort").asInt() == port) {
                        return pod(rendering, template.workload());
                    }
                }
            }
        }
        throw new AssertionError("no pod of the rendering serves port " + port);
    }

    @Test
    void anOverBroadEgressRuleShowsInTheMap() {
        List<Manifest> rendering = Renderings.copy(Renderings.prod());
        ObjectNode sandboxPolicy = (ObjectNode) Renderings.find(rendering, "NetworkPolicy", "sandbox-service").node();
        ((ArrayNode) sandboxPolicy.path("spec").path("egress"))
                .addObject().putArray("to").addObject().putObject("ipBlock").put("cidr", "0.0.0.0/0");
        Set<String> map = allowed(rendering, List.of(INTERNET, ANTHROPIC, BROKER, DATABASE));
        assertTrue(map.contains("sandbox-service -> internet:443/TCP"), map.toString());
        assertTrue(map.contains("sandbox-service -> anthropic:443/TCP"), map.toString());
    }

    @Test
    void everyRenderedPodIsIsolatedBothWays() {
        assertEquals(List.of(), NetworkPolicies.unisolatedPods(Renderings.prod()));
        assertEquals(List.of(), NetworkPolicies.unisolatedPods(Renderings.dev()));
    }

    @Test
    void aPodNoPolicySelectsIsCaught() {
        assertEquals(List.of("Deployment/stray: no NetworkPolicy selects its pods for ingress",
                        "Deployment/stray: no NetworkPolicy selects its pods for egress"),
                NetworkPolicies.unisolatedPods(Renderings.broken("unselected-pod.yaml")));
    }

    @Test
    void aNamespaceSelectorAndAPodSelectorInOnePeerMustBothMatch() {
        NetworkPolicies policies = NetworkPolicies.of(Renderings.prod());
        Pod bench = pod(Renderings.prod(), "bench-service");
        Pod controllerLabelsElsewhere = Pod.outside("impostor", "other", Map.of("app.kubernetes.io/name", "ingress-nginx"));
        Pod otherPodInControllerNamespace = Pod.outside("neighbour", "ingress-nginx", Map.of("app", "neighbour"));
        assertTrue(policies.allows(INGRESS_CONTROLLER, bench, 8104, "TCP"));
        assertFalse(policies.allows(controllerLabelsElsewhere, bench, 8104, "TCP"));
        assertFalse(policies.allows(otherPodInControllerNamespace, bench, 8104, "TCP"));
    }

    @Test
    void cidrsMatchByPrefix() {
        assertTrue(NetworkPolicies.inCidr("160.79.104.0/23", "160.79.105.255"));
        assertFalse(NetworkPolicies.inCidr("160.79.104.0/23", "160.79.106.0"));
        assertTrue(NetworkPolicies.inCidr("2607:6bc0::/48", "2607:6bc0:0:1::1"));
        assertFalse(NetworkPolicies.inCidr("10.20.1.0/24", "2607:6bc0::1"));
    }

    /** Every connection the rendering's policies allow, as "from -> to:port/protocol". */
    static Set<String> allowed(List<Manifest> rendering, List<Address> addresses) {
        NetworkPolicies policies = NetworkPolicies.of(rendering);
        List<Pod> inside = NetworkPolicies.podsOf(rendering);
        List<Peer> everyone = new ArrayList<>(inside);
        everyone.addAll(List.of(INGRESS_CONTROLLER, CLUSTER_DNS, OTHER_NAMESPACE));
        everyone.addAll(addresses);
        Set<String> allowed = new TreeSet<>();
        for (Peer from : everyone) {
            for (Peer to : everyone) {
                if (!inside.contains(from) && !inside.contains(to)) {
                    continue;
                }
                for (String port : ports(rendering, to)) {
                    int number = Integer.parseInt(port.substring(0, port.indexOf('/')));
                    String protocol = port.substring(port.indexOf('/') + 1);
                    if (policies.allows(from, to, number, protocol)) {
                        allowed.add(from.name() + " -> " + to.name() + ":" + port);
                    }
                }
            }
        }
        return allowed;
    }

    /** The ports to try on a peer: what its containers declare, DNS's, the TLS and database ports, and 22. */
    private static Set<String> ports(List<Manifest> rendering, Peer peer) {
        Set<String> ports = new TreeSet<>(List.of("22/TCP"));
        if (peer == CLUSTER_DNS) {
            ports.addAll(List.of("53/UDP", "53/TCP"));
        } else if (peer instanceof Address) {
            ports.addAll(List.of("443/TCP", "5671/TCP", "5432/TCP"));
        } else if (peer == INGRESS_CONTROLLER || peer == OTHER_NAMESPACE) {
            ports.addAll(List.of("443/TCP", "8080/TCP"));
        } else {
            for (PodTemplate template : PodTemplate.of(rendering)) {
                if (template.workload().equals(peer.name())) {
                    for (JsonNode container : template.containers()) {
                        PodTemplate.list(container.path("ports"))
                                .forEach(port -> ports.add(port.path("containerPort").asInt() + "/TCP"));
                    }
                }
            }
        }
        return ports;
    }

    private static Pod pod(List<Manifest> rendering, String workload) {
        return NetworkPolicies.podsOf(rendering).stream().filter(p -> p.name().equals(workload)).findFirst().orElseThrow();
    }
}
