package io.healbench.deploycheck;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The repository's renderings, each built once per test run: the overlays, and variants made in target/ the way an
 * operator would make them (an overlay plus a component, an overlay plus a new pool).
 */
final class Renderings {

    private static final Map<Path, List<Manifest>> BUILT = new ConcurrentHashMap<>();

    private Renderings() {
    }

    /** The repository root: surefire's healbench.home (the parent pom sets it), else the nearest parent with deploy/k8s. */
    static Path root() {
        String home = System.getProperty("healbench.home");
        if (home != null && Files.isDirectory(Path.of(home, "deploy/k8s"))) {
            return Path.of(home).toAbsolutePath().normalize();
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("deploy/k8s"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no deploy/k8s above " + Path.of("").toAbsolutePath());
    }

    static Path k8s() {
        return root().resolve("deploy/k8s");
    }

    static List<Manifest> build(Path kustomization) {
        return BUILT.computeIfAbsent(kustomization.toAbsolutePath().normalize(), Kustomize::build);
    }

    static List<Manifest> dev() {
        return build(k8s().resolve("overlays/dev"));
    }

    static List<Manifest> prod() {
        return build(k8s().resolve("overlays/prod"));
    }

    /** prod with the gVisor component, as docs/deploy.md tells an operator to add it. */
    static List<Manifest> prodOnGvisor() {
        Path dir = scratch("prod-gvisor");
        write(dir.resolve("kustomization.yaml"), """
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                resources:
                  - %s
                components:
                  - %s
                """.formatted(relative(dir, k8s().resolve("overlays/prod")), relative(dir, k8s().resolve("components/gvisor"))));
        return build(dir);
    }

    /** prod plus one more pool, {@code poolFile} being the pool's whole kustomization.yaml (see {@link #poolFile}). */
    static List<Manifest> prodWithPool(String pool, String poolFile) {
        Path dir = scratch("prod-with-" + pool);
        Path poolDir = dir.resolve("pools").resolve(pool);
        write(poolDir.resolve("kustomization.yaml"), poolFile.replace("@AGENT_POOL@", relative(poolDir, k8s().resolve("agent-pool"))));
        write(dir.resolve("kustomization.yaml"), """
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                resources:
                  - %s
                  - pools/%s
                """.formatted(relative(dir, k8s().resolve("overlays/prod")), pool));
        return build(dir);
    }

    /**
     * A pool's kustomization.yaml as docs/deploy.md shows it, for {@code pool}, optionally with components of
     * agent-pool (llm, hpa); {@code @AGENT_POOL@} stands for the path to agent-pool.
     */
    static String poolFile(String pool, String... components) {
        StringBuilder componentList = new StringBuilder();
        for (String component : components) {
            componentList.append("  - @AGENT_POOL@/").append(component).append('\n');
        }
        return """
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                resources:
                  - @AGENT_POOL@
                %s
                nameSuffix: -%s
                labels:
                  - pairs: {healbench.io/agent-pool: %s}
                    includeSelectors: true
                replacements:
                  - source: {kind: Deployment, fieldPath: "metadata.labels.[healbench.io/agent-pool]"}
                    targets:
                      - select: {group: rabbitmq.com, kind: Queue}
                        fieldPaths: [spec.name]
                        options: {delimiter: ".", index: 1}
                      - select: {group: rabbitmq.com, kind: Binding}
                        fieldPaths: [spec.destination, spec.routingKey]
                        options: {delimiter: ".", index: 1}
                      - select: {group: keda.sh, kind: ScaledObject}
                        fieldPaths: [spec.triggers.0.metadata.queueName]
                        options: {delimiter: ".", index: 1}
                      - select: {group: autoscaling, kind: HorizontalPodAutoscaler}
                        fieldPaths: [spec.metrics.0.external.metric.selector.matchLabels.queue]
                        options: {delimiter: ".", index: 1}
                """.formatted(components.length == 0 ? "" : "components:\n" + componentList, pool, pool);
    }

    /** Every kustomization directory under deploy/k8s that builds on its own (components only build inside one). */
    static List<Path> kustomizations() {
        try (Stream<Path> files = Files.walk(k8s())) {
            return files.filter(file -> file.getFileName().toString().equals("kustomization.yaml"))
                    .filter(file -> !Manifests.read(file).stream().findFirst()
                            .map(m -> m.kind().equals("Component")).orElse(false))
                    .map(Path::getParent)
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The objects of {@code kind} named {@code name}. */
    static Manifest find(List<Manifest> rendering, String kind, String name) {
        return rendering.stream().filter(m -> m.kind().equals(kind) && m.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + "/" + name + " in the rendering"));
    }

    /** A deep copy of a rendering, to break one thing in it. */
    static List<Manifest> copy(List<Manifest> rendering) {
        return rendering.stream().map(m -> new Manifest((JsonNode) m.node().deepCopy())).toList();
    }

    /** A file of src/test/resources/broken. */
    static List<Manifest> broken(String name) {
        return Manifests.read(root().resolve("deploy-check/src/test/resources/broken").resolve(name));
    }

    static Path scratch(String name) {
        Path dir = root().resolve("deploy-check/target/renderings").resolve(name);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return dir;
    }

    static void write(Path file, String text) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String relative(Path from, Path to) {
        return from.toAbsolutePath().normalize().relativize(to.toAbsolutePath().normalize()).toString();
    }
}
