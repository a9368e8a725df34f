package io.healbench.deploycheck;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The NetworkPolicies of a rendering, evaluated as the API defines them: a pod selected by a policy of a direction
 * is isolated in that direction, and then accepts only what some selecting policy's rule allows (peers by pod
 * selector in the policy's namespace, by namespace selector, both, or by address block; ports by number, name or
 * range). A connection between two pods needs the source's egress and the destination's ingress; to or from
 * something outside the namespace, only the side the rendering governs is evaluated. An address block is taken to
 * match addresses outside the cluster's pods only: which pod IPs fall in a block is the CNI's, not the rendering's.
 */
public final class NetworkPolicies {

    public static final String INGRESS = "Ingress";
    public static final String EGRESS = "Egress";

    /** One end of a connection. */
    public sealed interface Peer permits Pod, Address {
        String name();
    }

    /**
     * A pod: one of the rendering's ({@link #podsOf}) or one outside it (the ingress controller, cluster DNS), with its
     * namespace's labels and its named ports.
     */
    public record Pod(String name, String namespace, Map<String, String> namespaceLabels, Map<String, String> labels,
            Map<String, Integer> namedPorts) implements Peer {

        /** A pod outside the rendering, in a namespace known only by its name. */
        public static Pod outside(String name, String namespace, Map<String, String> labels) {
            return new Pod(name, namespace, Map.of("kubernetes.io/metadata.name", namespace), labels, Map.of());
        }
    }

    /** An address outside the cluster's pods (a managed service, an LLM endpoint, the internet). */
    public record Address(String name, String ip) implements Peer {
    }

    private final List<Manifest> policies;
    private final String defaultNamespace;

    private NetworkPolicies(List<Manifest> policies, String defaultNamespace) {
        this.policies = policies;
        this.defaultNamespace = defaultNamespace;
    }

    public static NetworkPolicies of(List<Manifest> rendering) {
        List<Manifest> policies = rendering.stream().filter(m -> m.is("networking.k8s.io", "NetworkPolicy")).toList();
        return new NetworkPolicies(policies, namespaceOf(rendering));
    }

    /** One representative pod per pod template of the rendering, named after its workload. */
    public static List<Pod> podsOf(List<Manifest> rendering) {
        String namespace = namespaceOf(rendering);
        Map<String, String> namespaceLabels = new LinkedHashMap<>();
        namespaceLabels.put("kubernetes.io/metadata.name", namespace);
        rendering.stream().filter(m -> m.kind().equals("Namespace") && m.name().equals(namespace))
                .findFirst().ifPresent(m -> namespaceLabels.putAll(m.labels()));
        List<Pod> pods = new ArrayList<>();
        for (PodTemplate template : PodTemplate.of(rendering)) {
            Map<String, Integer> namedPorts = new HashMap<>();
            for (JsonNode container : template.containers()) {
                for (JsonNode port : PodTemplate.list(container.path("ports"))) {
                    if (port.has("name")) {
                        namedPorts.put(port.path("name").asText(), port.path("containerPort").asInt());
                    }
                }
            }
            pods.add(new Pod(template.workload(), namespace, namespaceLabels, template.labels(), namedPorts));
        }
        return pods;
    }

    /**
     * The rendering's pods that some direction leaves open: every pod must be selected by a policy for ingress and by
     * one for egress, so that what it may reach and what may reach it is only what a policy says.
     */
    public static List<String> unisolatedPods(List<Manifest> rendering) {
        NetworkPolicies policies = of(rendering);
        List<String> findings = new ArrayList<>();
        List<PodTemplate> templates = PodTemplate.of(rendering);
        List<Pod> pods = podsOf(rendering);
        for (int i = 0; i < pods.size(); i++) {
            for (String direction : List.of(INGRESS, EGRESS)) {
                if (!policies.isolates(pods.get(i), direction)) {
                    findings.add(templates.get(i).owner().id() + ": no NetworkPolicy selects its pods for "
                            + direction.toLowerCase(Locale.ROOT));
                }
            }
        }
        return findings;
    }

    /** Whether some policy isolates {@code pod} in {@code direction}. */
    public boolean isolates(Pod pod, String direction) {
        return policies.stream().anyMatch(policy -> selects(policy, pod) && types(policy).contains(direction));
    }

    public boolean allows(Peer from, Peer to, int port, String protocol) {
        boolean egress = !(from instanceof Pod source) || !governed(source) || allowsEgress(source, to, port, protocol);
        boolean ingress = !(to instanceof Pod destination) || !governed(destination)
                || allowsIngress(from, destination, port, protocol);
        return egress && ingress;
    }

    private boolean governed(Pod pod) {
        return pod.namespace().equals(defaultNamespace);
    }

    private boolean allowsEgress(Pod from, Peer to, int port, String protocol) {
        if (!isolates(from, EGRESS)) {
            return true;
        }
        for (Manifest policy : policies) {
            if (!selects(policy, from) || !types(policy).contains(EGRESS)) {
                continue;
            }
            for (JsonNode rule : PodTemplate.list(policy.spec().path("egress"))) {
                if (portsMatch(rule.path("ports"), to, port, protocol) && peersMatch(rule.path("to"), policy, to)) {
                    return true;
                }
            }
        }
        return false;
    }

    private boolean allowsIngress(Peer from, Pod to, int port, String protocol) {
        if (!isolates(to, INGRESS)) {
            return true;
        }
        for (Manifest policy : policies) {
            if (!selects(policy, to) || !types(policy).contains(INGRESS)) {
                continue;
            }
            for (JsonNode rule : PodTemplate.list(policy.spec().path("ingress"))) {
                if (portsMatch(rule.path("ports"), to, port, protocol) && peersMatch(rule.path("from"), policy, from)) {
                    return true;
                }
            }
        }
        return false;
    }

    private boolean selects(Manifest policy, Pod pod) {
        return governed(pod) && Selectors.matches(policy.spec().path("podSelector"), pod.labels());
    }

    /** policyTypes, or the API's default when absent: Ingress, plus Egress when the policy has egress rules. */
    private static Set<String> types(Manifest policy) {
        JsonNode types = policy.spec().path("policyTypes");
        if (types.isArray() && !types.isEmpty()) {
            Set<String> declared = new HashSet<>();
            types.forEach(type -> declared.add(type.asText()));
            return declared;
        }
        return policy.spec().has("egress") ? Set.of(INGRESS, EGRESS) : Set.of(INGRESS);
    }

    /** An absent or empty list of peers matches every peer. */
    private boolean peersMatch(JsonNode peers, Manifest policy, Peer peer) {
        if (!peers.isArray() || peers.isEmpty()) {
            return true;
        }
        for (JsonNode rule : peers) {
            if (peerMatches(rule, policy, peer)) {
                return true;
            }
        }
        return false;
    }

    private boolean peerMatches(JsonNode rule, Manifest policy, Peer peer) {
        if (rule.has("ipBlock")) {
            return peer instanceof Address address && inBlock(rule.path("ipBlock"), address.ip());
        }
        if (!(peer instanceof Pod pod)) {
            return false;
        }
        boolean namespaceMatches = rule.has("namespaceSelector")
                ? Selectors.matches(rule.path("namespaceSelector"), pod.namespaceLabels())
                : pod.namespace().equals(policyNamespace(policy));
        boolean podMatches = !rule.has("podSelector") || Selectors.matches(rule.path("podSelector"), pod.labels());
        return namespaceMatches && podMatches;
    }

    private String policyNamespace(Manifest policy) {
        return policy.namespace().isEmpty() ? defaultNamespace : policy.namespace();
    }

    /** An absent or empty list of ports matches every port; a named port is the destination pod's. */
    private static boolean portsMatch(JsonNode ports, Peer destination, int port, String protocol) {
        if (!ports.isArray() || ports.isEmpty()) {
            return true;
        }
        for (JsonNode rule : ports) {
            if (!rule.path("protocol").asText("TCP").equals(protocol)) {
                continue;
            }
            JsonNode declared = rule.path("port");
            if (declared.isMissingNode()) {
                return true;
            }
            int first;
            if (declared.isInt()) {
                first = declared.asInt();
            } else if (destination instanceof Pod pod && pod.namedPorts().containsKey(declared.asText())) {
                first = pod.namedPorts().get(declared.asText());
            } else {
                continue;
            }
            int last = rule.has("endPort") ? rule.path("endPort").asInt() : first;
            if (port >= first && port <= last) {
                return true;
            }
        }
        return false;
    }

    private static boolean inBlock(JsonNode ipBlock, String ip) {
        if (!inCidr(ipBlock.path("cidr").asText(), ip)) {
            return false;
        }
        for (JsonNode except : PodTemplate.list(ipBlock.path("except"))) {
            if (inCidr(except.asText(), ip)) {
                return false;
            }
        }
        return true;
    }

    static boolean inCidr(String cidr, String ip) {
        int slash = cidr.indexOf('/');
        try {
            byte[] network = InetAddress.getByName(cidr.substring(0, slash)).getAddress();
            byte[] address = InetAddress.getByName(ip).getAddress();
            if (network.length != address.length) {
                return false;
            }
            int prefix = Integer.parseInt(cidr.substring(slash + 1));
            int bits = network.length * 8;
            BigInteger mask = BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE)
                    .xor(BigInteger.ONE.shiftLeft(bits - prefix).subtract(BigInteger.ONE));
            return new BigInteger(1, network).and(mask).equals(new BigInteger(1, address).and(mask));
        } catch (UnknownHostException | RuntimeException e) {
            throw new IllegalArgumentException("not a CIDR and an address: " + cidr + ", " + ip, e);
        }
    }

    /** The namespace kustomize put the rendering's objects in; {@code default} for a rendering without one. */
    static String namespaceOf(List<Manifest> rendering) {
        return rendering.stream().map(Manifest::namespace).filter(ns -> !ns.isEmpty()).findFirst().orElse("default");
    }
}
