package io.healbench.deploycheck;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keys and credentials come from Secrets, and no value of one is in the repository: a key-like environment variable
 * takes its value from a Secret (never a literal, never a ConfigMap); no ConfigMap has a key-like entry or a value
 * that looks like secret material; the rendering holds no Secret at all (they come from the External Secrets
 * Operator in prod and from make-secrets.sh in dev).
 */
public final class SecretsCheck {

    /** Names of things that hold secrets: FOO_PASSWORD, API_KEY, HEALBENCH_SERVICE_AUTH_KEY, client-secret, ... */
    static final Pattern KEY_LIKE_NAME = Pattern.compile(
            "(?i)(password|passwd|secret|token|api[_-]?key|private[_-]?key|credential|(^|[_.-])(key|pass)$)");

    /** A kind of secret material, and how a finding names it. */
    private record Material(Pattern pattern, String description) {
    }

    private static final List<Material> SECRET_MATERIAL = List.of(
            new Material(Pattern.compile("-----BEGIN [A-Z ]*PRIVATE KEY-----"), "a private key"),
            new Material(Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*://[^/\\s:@]+:[^/\\s@]+@"), "a URL with a password in it"),
            // OpenAI and Anthropic keys, AWS access keys, GitHub tokens, Slack tokens, Google API keys.
            new Material(Pattern.compile("\\b(sk-[A-Za-z0-9_-]{16,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{30,}"
                    + "|xox[abpr]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{30,})"), "a provider's API key or token"),
            new Material(Pattern.compile("(?im)^\\s*[\\w.-]*(password|passwd|secret|token|api[_-]?key)\\s*[:=]\\s*\\S+"),
                    "an embedded file's password or key setting"));
    private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9+/_-]{32,}={0,2}");

    public List<String> check(List<Manifest> manifests) {
        List<String> findings = new ArrayList<>();
        for (Manifest manifest : manifests) {
            if (manifest.is("", "Secret")) {
                findings.add(manifest.id() + ": a Secret in the manifests; reference it, and let the External Secrets "
                        + "Operator (prod) or make-secrets.sh (dev) make it");
            }
            if (manifest.is("", "ConfigMap")) {
                checkConfigMap(manifest, findings);
            }
        }
        for (PodTemplate pod : PodTemplate.of(manifests)) {
            for (JsonNode container : pod.allContainers()) {
                for (JsonNode variable : PodTemplate.list(container.path("env"))) {
                    String name = variable.path("name").asText();
                    if (KEY_LIKE_NAME.matcher(name).find() && !variable.path("valueFrom").has("secretKeyRef")) {
                        findings.add(pod.describe(container) + ": " + name + " looks like a key or credential but does "
                                + "not come from a Secret (valueFrom.secretKeyRef)");
                    }
                }
            }
        }
        return findings;
    }

    private static void checkConfigMap(Manifest configMap, List<String> findings) {
        for (String section : List.of("data", "binaryData")) {
            for (Map.Entry<String, JsonNode> entry : configMap.node().path(section).properties()) {
                if (KEY_LIKE_NAME.matcher(entry.getKey()).find()) {
                    findings.add(configMap.id() + ": entry " + entry.getKey() + " is named like a key or credential; "
                            + "keep it in a Secret");
                }
                String reason = secretMaterial(entry.getValue().asText());
                if (reason != null) {
                    findings.add(configMap.id() + ": entry " + entry.getKey() + " holds " + reason + "; keep it in a Secret");
                }
            }
        }
    }

    /** What in {@code value} looks like secret material, or null. */
    static String secretMaterial(String value) {
        for (Material material : SECRET_MATERIAL) {
            if (material.pattern().matcher(value).find()) {
                return "what looks like " + material.description();
            }
        }
        Matcher tokens = TOKEN.matcher(value);
        while (tokens.find()) {
            String token = tokens.group();
            if (looksRandom(token)) {
                return "a random-looking token of " + token.length() + " characters";
            }
        }
        return null;
    }

    /** Mixed case and digits at over 4 bits of entropy per character: a key, not a word, path or host name. */
    private static boolean looksRandom(String token) {
        boolean upper = token.chars().anyMatch(Character::isUpperCase);
        boolean lower = token.chars().anyMatch(Character::isLowerCase);
        boolean digit = token.chars().anyMatch(Character::isDigit);
        return upper && lower && digit && entropy(token) > 4.0;
    }

    private static double entropy(String text) {
        int[] counts = new int[128];
        int others = 0;
        for (char c : text.toCharArray()) {
            if (c < 128) {
                counts[c]++;
            } else {
                others++;
            }
        }
        double bits = 0;
        for (int count : counts) {
            if (count > 0) {
                double p = (double) count / text.length();
                bits -= p * Math.log(p) / Math.log(2);
            }
        }
        return others > 0 ? bits + 1 : bits;
    }

    /**
     * Every Secret the rendering needs to exist: those its pods read (env, envFrom, volumes), its Ingresses' TLS
     * certificates, and the ones operators read for it (KEDA's TriggerAuthentication, the topology operator's
     * connection).
     */
    public static Set<String> referencedSecrets(List<Manifest> manifests) {
        Set<String> names = new LinkedHashSet<>();
        for (PodTemplate pod : PodTemplate.of(manifests)) {
            for (JsonNode container : pod.allContainers()) {
                PodTemplate.list(container.path("env")).forEach(variable ->
                        addText(names, variable.path("valueFrom").path("secretKeyRef").path("name")));
                PodTemplate.list(container.path("envFrom")).forEach(source -> addText(names, source.path("secretRef").path("name")));
            }
            PodTemplate.list(pod.spec().path("volumes")).forEach(volume -> addText(names, volume.path("secret").path("secretName")));
        }
        for (Manifest manifest : manifests) {
            if (manifest.is("networking.k8s.io", "Ingress")) {
                PodTemplate.list(manifest.spec().path("tls")).forEach(tls -> addText(names, tls.path("secretName")));
            }
            if (manifest.is("keda.sh", "TriggerAuthentication")) {
                PodTemplate.list(manifest.spec().path("secretTargetRef")).forEach(ref -> addText(names, ref.path("name")));
            }
            if (manifest.group().equals("rabbitmq.com")) {
                addText(names, manifest.spec().path("rabbitmqClusterReference").path("connectionSecret").path("name"));
            }
        }
        return names;
    }

    private static void addText(Set<String> names, JsonNode value) {
        if (value.isTextual() && !value.asText().isEmpty()) {
            names.add(value.asText());
        }
    }
}
