package io.healbench.deploycheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** The gate: every kustomization renders, and every overlay (and the documented variants) passes every check. */
class OverlaysTest {

    private static final Map<String, Supplier<List<Manifest>>> OVERLAYS = Map.of(
            "overlays/dev", Renderings::dev,
            "overlays/prod", Renderings::prod,
            "overlays/prod + components/gvisor", Renderings::prodOnGvisor,
            "overlays/prod + a pool on the HPA alternative",
            () -> Renderings.prodWithPool("replay-hpa", Renderings.poolFile("replay-hpa", "hpa")));

    @TestFactory
    Stream<DynamicTest> everyKustomizationRenders() {
        List<Path> kustomizations = Renderings.kustomizations();
        assertTrue(kustomizations.size() >= 5, "found only " + kustomizations);
        return kustomizations.stream().map(dir -> dynamicTest(Renderings.k8s().relativize(dir).toString(),
                () -> assertTrue(!Renderings.build(dir).isEmpty(), dir + " rendered nothing")));
    }

    @TestFactory
    Stream<DynamicTest> everyOverlayPassesEveryCheck() {
        return OVERLAYS.entrySet().stream().sorted(Map.Entry.comparingByKey()).map(overlay -> dynamicTest(overlay.getKey(),
                () -> assertEquals(List.of(), DeployCheck.of(Renderings.root()).check(overlay.getValue().get()))));
    }

    @Test
    void everyPolicyExceptionIsStillNeeded() {
        DeployCheck check = DeployCheck.of(Renderings.root());
        OVERLAYS.values().forEach(overlay -> check.check(overlay.get()));
        assertEquals(java.util.Set.of(), check.exceptions().unused(),
                "policy-exceptions.yaml grants what no rendered pod needs any more");
    }

    @Test
    void theGvisorComponentPutsTheSandboxOnGvisorOnly() {
        List<Manifest> rendering = Renderings.prodOnGvisor();
        List<String> onGvisor = PodTemplate.of(rendering).stream()
                .filter(pod -> pod.spec().path("runtimeClassName").asText().equals("gvisor"))
                .map(PodTemplate::workload).toList();
        assertEquals(List.of("sandbox-service"), onGvisor);
    }
}
