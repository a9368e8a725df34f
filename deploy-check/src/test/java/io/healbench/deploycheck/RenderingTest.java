package io.healbench.deploycheck;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The rendering step can fail, and says why. */
class RenderingTest {

    @Test
    void aKustomizationNamingAMissingFileFailsToRender() {
        Path dir = Renderings.scratch("broken-kustomization");
        assertFailsToRenderNaming(dir, """
                resources:
                  - deployment-that-is-not-there.yaml
                """, "deployment-that-is-not-there.yaml");
    }

    @Test
    void aPatchOfAnObjectTheOverlayLacksFailsToRender() {
        Path dir = Renderings.scratch("broken-patch");
        assertFailsToRenderNaming(dir, """
                resources:
                  - %s
                patches:
                  - patch: |-
                      apiVersion: apps/v1
                      kind: Deployment
                      metadata: {name: guard-servce}
                      spec: {replicas: 3}
                """.formatted(dir.relativize(Renderings.k8s().resolve("base"))), "guard-servce");
    }

    /** A kustomization of {@code body} in {@code dir} fails to render, and the failure names the culprit. */
    private static void assertFailsToRenderNaming(Path dir, String body, String culprit) {
        Renderings.write(dir.resolve("kustomization.yaml"), """
                apiVersion: kustomize.config.k8s.io/v1beta1
                kind: Kustomization
                """ + body);
        Kustomize.RenderingFailed failure = assertThrows(Kustomize.RenderingFailed.class, () -> Kustomize.render(dir));
        assertTrue(failure.getMessage().contains(culprit), failure.getMessage());
    }
}
