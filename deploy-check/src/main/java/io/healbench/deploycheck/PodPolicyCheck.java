package io.healbench.deploycheck;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * The rules every rendered pod keeps (docs/deploy.md, "Checks"), unless deploy/k8s/policy-exceptions.yaml lists the
 * container, the rule and why:
 * <ul>
 *   <li>every container has CPU and memory requests and a memory limit; every long-running one a liveness and a
 *       readiness probe; a HealBench service's probes are on /q/health/live and /q/health/ready at the port its
 *       application.properties serves HTTP on, and its gRPC port is declared wherever gRPC has its own server;</li>
 *   <li>every container runs as non-root, with a RuntimeDefault or Localhost seccomp profile, no unconfined AppArmor
 *       profile, a read-only root filesystem, no privilege escalation, all capabilities dropped and none added, and is
 *       never privileged;</li>
 *   <li>every pod has its own ServiceAccount without a mounted token, no service links, no host namespaces and no
 *       hostPath volume.</li>
 * </ul>
 */
public final class PodPolicyCheck {

    private static final String HEALBENCH_IMAGE_PREFIX = "healbench/";

    private final Path repositoryRoot;
    private final PolicyExceptions exceptions;

    public PodPolicyCheck(Path repositoryRoot, PolicyExceptions exceptions) {
        this.repositoryRoot = repositoryRoot;
        this.exceptions = exceptions;
    }

    public List<String> check(List<Manifest> manifests) {
        List<String> findings = new ArrayList<>();
        for (PodTemplate pod : PodTemplate.of(manifests)) {
            checkPod(pod, findings);
            for (JsonNode container : pod.initContainers()) {
                checkContainer(pod, container, findings);
            }
            for (JsonNode container : pod.containers()) {
                checkContainer(pod, container, findings);
                checkProbes(pod, container, findings);
            }
        }
        return findings;
    }

    private void checkPod(PodTemplate pod, List<String> findings) {
        JsonNode spec = pod.spec();
        String id = pod.owner().id();
        if (!spec.path("automountServiceAccountToken").isBoolean() || spec.path("automountServiceAccountToken").asBoolean()) {
            findings.add(id + ": mounts a service account token (set automountServiceAccountToken: false; no HealBench pod calls the Kubernetes API)");
        }
        String account = spec.path("serviceAccountName").asText("");
        if (account.isEmpty() || account.equals("default")) {
            findings.add(id + ": runs as the namespace's default ServiceAccount; give it its own");
        }
        if (!spec.path("enableServiceLinks").isBoolean() || spec.path("enableServiceLinks").asBoolean()) {
            findings.add(id + ": has service links (set enableServiceLinks: false; the rabbitmq Service's RABBITMQ_PORT would reach MicroProfile Config)");
        }
        for (String hostNamespace : List.of("hostNetwork", "hostPID", "hostIPC")) {
            if (spec.path(hostNamespace).asBoolean(false)) {
                findings.add(id + ": uses the node's namespace (" + hostNamespace + ")");
            }
        }
        for (JsonNode volume : PodTemplate.list(spec.path("volumes"))) {
            if (volume.has("hostPath")) {
                findings.add(id + ": mounts the node's filesystem (hostPath volume " + volume.path("name").asText() + ")");
            }
        }
    }

    private void checkContainer(PodTemplate pod, JsonNode container, List<String> findings) {
        String id = pod.describe(container);
        String name = container.path("name").asText();
        JsonNode resources = container.path("resources");
        for (String[] required : new String[][] {{"requests", "cpu"}, {"requests", "memory"}, {"limits", "memory"}}) {
            if (resources.path(required[0]).path(required[1]).isMissingNode()) {
                findings.add(id + ": no " + required[0] + "." + required[1]);
            }
        }
        JsonNode podSecurity = pod.spec().path("securityContext");
        JsonNode security = container.path("securityContext");
        if (security.path("privileged").asBoolean(false)) {
            findings.add(id + ": is privileged");
        }
        if (!security.path("allowPrivilegeEscalation").isBoolean() || security.path("allowPrivilegeEscalation").asBoolean()) {
            findings.add(id + ": may escalate privileges (set allowPrivilegeEscalation: false)");
        }
        Set<String> dropped = texts(security.path("capabilities").path("drop"));
        if (!dropped.contains("ALL")) {
            findings.add(id + ": does not drop ALL capabilities");
        }
        Set<String> added = texts(security.path("capabilities").path("add"));
        if (!added.isEmpty()) {
            Set<String> allowed = exceptions.capabilities(pod.workload(), name);
            Set<String> extra = new HashSet<>(added);
            extra.removeAll(allowed);
            if (!extra.isEmpty()) {
                findings.add(id + ": adds capabilities " + new TreeSet<>(extra)
                        + " that policy-exceptions.yaml does not grant it");
            }
        }
        if (!security.path("readOnlyRootFilesystem").asBoolean(false)
                && !exceptions.allows(pod.workload(), name, PolicyExceptions.WRITABLE_ROOT_FILESYSTEM)) {
            findings.add(id + ": has a writable root filesystem (set readOnlyRootFilesystem: true, with emptyDirs where it writes)");
        }
        boolean nonRoot = effective(security, podSecurity, "runAsNonRoot").map(JsonNode::asBoolean).orElse(false);
        boolean uidZero = effective(security, podSecurity, "runAsUser").map(uid -> uid.asLong() == 0).orElse(false);
        if ((!nonRoot || uidZero) && !exceptions.allows(pod.workload(), name, PolicyExceptions.RUN_AS_ROOT)) {
            findings.add(id + ": may run as root (set runAsNonRoot: true and a non-zero runAsUser)");
        }
        String seccomp = effective(security, podSecurity, "seccompProfile").map(p -> p.path("type").asText()).orElse("");
        if (!seccomp.equals("RuntimeDefault") && !seccomp.equals("Localhost")
                && !(seccomp.equals("Unconfined") && exceptions.allows(pod.workload(), name, PolicyExceptions.SECCOMP_UNCONFINED))) {
            findings.add(id + ": " + (seccomp.isEmpty() ? "has no seccomp profile" : "has seccomp profile " + seccomp)
                    + " (RuntimeDefault or Localhost)");
        }
        String appArmor = effective(security, podSecurity, "appArmorProfile").map(p -> p.path("type").asText()).orElse("");
        if (appArmor.equals("Unconfined") && !exceptions.allows(pod.workload(), name, PolicyExceptions.APPARMOR_UNCONFINED)) {
            findings.add(id + ": runs without AppArmor confinement");
        }
    }

    private void checkProbes(PodTemplate pod, JsonNode container, List<String> findings) {
        String id = pod.describe(container);
        boolean liveness = container.has("livenessProbe");
        boolean readiness = container.has("readinessProbe");
        if (!liveness) {
            findings.add(id + ": no livenessProbe");
        }
        if (!readiness) {
            findings.add(id + ": no readinessProbe");
        }
        Optional<Properties> application = applicationProperties(container.path("image").asText());
        if (application.isEmpty()) {
            return;
        }
        Properties properties = application.get();
        String httpPortText = env(container, "QUARKUS_HTTP_PORT").orElse(properties.getProperty("quarkus.http.port", "8080"));
        int httpPort = Integer.parseInt(httpPortText.strip());
        if (!declaredPorts(container).contains(httpPort)) {
            findings.add(id + ": does not declare containerPort " + httpPort + ", the service's quarkus.http.port");
        }
        if (!"false".equals(properties.getProperty("quarkus.grpc.server.use-separate-server", "true").strip())) {
            int grpcPort = Integer.parseInt(properties.getProperty("quarkus.grpc.server.port", "9000").strip());
            if (!declaredPorts(container).contains(grpcPort)) {
                findings.add(id + ": gRPC has its own server on " + grpcPort + " (quarkus.grpc.server.use-separate-server), "
                        + "which the container does not declare");
            }
        }
        if (liveness) {
            checkHealthProbe(id, container, "livenessProbe", "/q/health/live", httpPort, findings);
        }
        if (readiness) {
            checkHealthProbe(id, container, "readinessProbe", "/q/health/ready", httpPort, findings);
        }
    }

    private static void checkHealthProbe(String id, JsonNode container, String probe, String path, int httpPort,
            List<String> findings) {
        JsonNode httpGet = container.path(probe).path("httpGet");
        if (httpGet.isMissingNode()) {
            findings.add(id + ": " + probe + " is not an HTTP check of " + path);
            return;
        }
        if (!httpGet.path("path").asText().equals(path)) {
            findings.add(id + ": " + probe + " checks " + httpGet.path("path").asText() + ", not " + path);
        }
        OptionalInt port = resolvePort(container, httpGet.path("port"));
        if (port.isEmpty() || port.getAsInt() != httpPort) {
            findings.add(id + ": " + probe + " checks port " + httpGet.path("port").asText()
                    + ", not the service's HTTP port " + httpPort);
        }
    }

    /** application.properties of the module a HealBench image is built from ({@code healbench/<module>:<tag>}). */
    private Optional<Properties> applicationProperties(String image) {
        if (!image.startsWith(HEALBENCH_IMAGE_PREFIX)) {
            return Optional.empty();
        }
        String module = image.substring(HEALBENCH_IMAGE_PREFIX.length()).replaceFirst("[:@].*$", "");
        Path file = repositoryRoot.resolve(module).resolve("src/main/resources/application.properties");
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
            properties.load(reader);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        return Optional.of(properties);
    }

    static OptionalInt resolvePort(JsonNode container, JsonNode port) {
        if (port.isInt()) {
            return OptionalInt.of(port.asInt());
        }
        for (JsonNode declared : PodTemplate.list(container.path("ports"))) {
            if (declared.path("name").asText().equals(port.asText())) {
                return OptionalInt.of(declared.path("containerPort").asInt());
            }
        }
        return OptionalInt.empty();
    }

    private static Set<Integer> declaredPorts(JsonNode container) {
        Set<Integer> ports = new HashSet<>();
        PodTemplate.list(container.path("ports")).forEach(port -> ports.add(port.path("containerPort").asInt()));
        return ports;
    }

    private static Optional<String> env(JsonNode container, String name) {
        for (JsonNode variable : PodTemplate.list(container.path("env"))) {
            if (variable.path("name").asText().equals(name) && variable.has("value")) {
                return Optional.of(variable.path("value").asText());
            }
        }
        return Optional.empty();
    }

    /** A security setting as the kubelet applies it: the container's own, else the pod's. */
    private static Optional<JsonNode> effective(JsonNode container, JsonNode pod, String field) {
        if (container.has(field)) {
            return Optional.of(container.get(field));
        }
        return pod.has(field) ? Optional.of(pod.get(field)) : Optional.empty();
    }

    private static Set<String> texts(JsonNode array) {
        Set<String> values = new HashSet<>();
        PodTemplate.list(array).forEach(value -> values.add(value.asText()));
        return values;
    }
}
