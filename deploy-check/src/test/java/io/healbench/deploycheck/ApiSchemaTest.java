package io.healbench.deploycheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The schema checks catch what the API server or an operator would reject, or silently drop. */
class ApiSchemaTest {

    private final ApiSchemaCheck check = new ApiSchemaCheck();

    @Test
    void aMisspelledFieldIsCaught() {
        assertEquals(List.of("Deployment/misspelled: unknown field spec.template.spec.containers[0].readinesProbe"),
                check.check(Renderings.broken("misspelled-field.yaml")));
    }

    @Test
    void aMisspelledFieldDeepInTheRenderedProdOverlayIsCaught() {
        List<Manifest> rendering = Renderings.copy(Renderings.prod());
        ObjectNode policy = (ObjectNode) Renderings.find(rendering, "NetworkPolicy", "sandbox-service").node();
        ObjectNode egressRule = (ObjectNode) policy.path("spec").path("egress").path(0);
        egressRule.set("too", egressRule.remove("to"));
        assertEquals(List.of("NetworkPolicy/sandbox-service: unknown field spec.egress[0].too"), check.check(rendering));
    }

    @Test
    void aValueOfTheWrongTypeIsCaught() {
        List<String> findings = check.check(Renderings.broken("wrong-type.yaml"));
        assertEquals(1, findings.size(), findings.toString());
        assertTrue(findings.get(0).startsWith("Deployment/wrong-type: does not fit the apps/v1 Deployment schema"), findings.get(0));
    }

    @Test
    void customResourcesAreCheckedAgainstTheirOwnSchemas() {
        List<String> findings = check.check(Renderings.broken("custom-resources.yaml"));
        assertHas(findings, "ScaledObject/misspelled", "minReplicaCout");
        assertHas(findings, "ScaledObject/misspelled", "queName");
        assertHas(findings, "ScaledObject/misspelled", "queueName");
        assertHas(findings, "ScaledObject/misspelled", "value");
        assertHas(findings, "ExternalSecret/storeless", "secretStoreRef");
        assertHas(findings, "Queue/misspelled", "durabel");
    }

    @Test
    void aKindWithoutASchemaIsCaught() {
        assertEquals(List.of("Certificate/healbench-tls: no schema for cert-manager.io/v1 Certificate (not a Kubernetes "
                + "kind fabric8 models, and deploy-check has no custom resource schema for it)"),
                check.check(Renderings.broken("unknown-kind.yaml")));
    }

    private static void assertHas(List<String> findings, String object, String word) {
        assertTrue(findings.stream().anyMatch(f -> f.startsWith(object + ":") && f.contains(word)),
                "no finding about " + word + " on " + object + " in " + findings);
    }
}
