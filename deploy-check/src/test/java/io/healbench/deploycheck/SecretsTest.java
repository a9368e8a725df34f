package io.healbench.deploycheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Keys and credentials only ever come from Secrets, and every Secret the manifests name has a maker. */
class SecretsTest {

    @Test
    void keysInTheOpenAreCaught() {
        List<String> findings = new SecretsCheck().check(Renderings.broken("secrets-in-the-open.yaml"));
        assertHas(findings, "Secret/committed: a Secret in the manifests");
        assertHas(findings, "ConfigMap/leaky-config: entry DATABASE_PASSWORD is named like a key or credential");
        assertHas(findings, "ConfigMap/leaky-config: entry LLM_ENDPOINT_HEADER holds what looks like a provider's API key");
        assertHas(findings, "ConfigMap/leaky-config: entry BROKER_URL holds what looks like a URL with a password");
        assertHas(findings, "ConfigMap/leaky-config: entry application.yaml holds what looks like an embedded file's password or key");
        assertHas(findings, "Deployment/literal-password container app: RABBITMQ_PASSWORD looks like a key or credential");
        assertHas(findings, "Deployment/literal-password container app: OPENAI_API_KEY looks like a key or credential");
        assertEquals(7, findings.size(), findings.toString());
    }

    @Test
    void ordinaryConfigurationIsNotMistakenForAKey() {
        assertNull(SecretsCheck.secretMaterial("jdbc:postgresql://postgres.internal.example:5432/healbench?sslmode=verify-full"));
        assertNull(SecretsCheck.secretMaterial("/opt/healbench/config/backbones.yaml"));
        assertNull(SecretsCheck.secretMaterial("-XX:MaxRAMPercentage=70 -XX:+ExitOnOutOfMemoryError"));
        assertNull(SecretsCheck.secretMaterial("api_key_env: ANTHROPIC_API_KEY"));
    }

    @Test
    void everySecretTheDevOverlayNamesIsMadeByMakeSecrets() throws IOException {
        String script = Files.readString(Renderings.k8s().resolve("overlays/dev/make-secrets.sh"));
        Set<String> made = new HashSet<>();
        Matcher make = Pattern.compile("(?m)^make (\\S+)").matcher(script);
        while (make.find()) {
            made.add(make.group(1));
        }
        Set<String> missing = new TreeSet<>(SecretsCheck.referencedSecrets(Renderings.dev()));
        missing.removeAll(made);
        assertEquals(Set.of(), missing, "the dev overlay names Secrets make-secrets.sh does not make");
    }

    @Test
    void everySecretTheProdOverlayNamesComesFromAnExternalSecret() {
        List<Manifest> prod = Renderings.prod();
        Set<String> made = new TreeSet<>();
        prod.stream().filter(m -> m.is("external-secrets.io", "ExternalSecret"))
                .forEach(m -> made.add(m.spec().path("target").path("name").asText(m.name())));
        Set<String> referenced = new TreeSet<>(SecretsCheck.referencedSecrets(prod));
        // The ingress certificate is the certificate manager's (docs/deploy.md, "Prod").
        referenced.remove("healbench-tls");
        assertEquals(referenced, made, "each referenced Secret from an ExternalSecret, and no ExternalSecret unused");
    }

    @Test
    void noRenderingHoldsAKeyLikeValue() {
        assertEquals(List.of(), new SecretsCheck().check(Renderings.prod()));
        assertEquals(List.of(), new SecretsCheck().check(Renderings.dev()));
    }

    private static void assertHas(List<String> findings, String start) {
        assertTrue(findings.stream().anyMatch(f -> f.startsWith(start)), "no finding starting '" + start + "' in " + findings);
    }
}
