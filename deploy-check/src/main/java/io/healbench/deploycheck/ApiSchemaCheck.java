package io.healbench.deploycheck;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.AnnotatedMember;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.networknt.schema.Schema;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every rendered object against the API's schema, unknown fields rejected. A built-in kind is read into fabric8's
 * model of it (a wrong type fails the read); every field the model does not know lands in an {@code
 * additionalProperties} map, and any entry there is a finding: that is how a misspelled {@code readinesProbe}, which
 * the API server would drop without a word under client-side apply, is caught. A custom resource is checked against
 * this module's schema of it ({@link CustomResourceSchemas}); a kind known to neither is a finding too.
 */
public final class ApiSchemaCheck {

    private final ObjectMapper json = new ObjectMapper();
    private final CustomResourceSchemas customResources = new CustomResourceSchemas();

    public List<String> check(List<Manifest> manifests) {
        List<String> findings = new ArrayList<>();
        for (Manifest manifest : manifests) {
            findings.addAll(check(manifest));
        }
        return findings;
    }

    List<String> check(Manifest manifest) {
        if (manifest.apiVersion().isEmpty() || manifest.kind().isEmpty()) {
            return List.of(manifest.id() + ": no apiVersion or kind");
        }
        if (manifest.name().isEmpty()) {
            return List.of(manifest.id() + ": no metadata.name");
        }
        Optional<Schema> customResource = customResources.schemaFor(manifest.apiVersion(), manifest.kind());
        if (customResource.isPresent()) {
            return customResources.validate(manifest, customResource.get());
        }
        KubernetesResource model;
        try {
            model = json.treeToValue(manifest.node(), KubernetesResource.class);
        } catch (Exception e) {
            return List.of(manifest.id() + ": does not fit the " + manifest.apiVersion() + " " + manifest.kind()
                    + " schema: " + firstLine(e.getMessage()));
        }
        if (model instanceof GenericKubernetesResource) {
            return List.of(manifest.id() + ": no schema for " + manifest.apiVersion() + " " + manifest.kind()
                    + " (not a Kubernetes kind fabric8 models, and deploy-check has no custom resource schema for it)");
        }
        List<String> unknown = new ArrayList<>();
        collectUnknownFields(model, "", unknown);
        return unknown.stream().map(path -> manifest.id() + ": unknown field " + path).toList();
    }

    /** Walks a fabric8 model by its JSON properties, collecting the paths of fields the model did not know. */
    private void collectUnknownFields(Object value, String path, List<String> unknown) {
        if (value == null) {
            return;
        }
        if (value instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                collectUnknownFields(list.get(i), path + "[" + i + "]", unknown);
            }
            return;
        }
        if (value instanceof Map<?, ?> map) {
            map.forEach((key, entry) -> collectUnknownFields(entry, join(path, String.valueOf(key)), unknown));
            return;
        }
        if (!value.getClass().getName().startsWith("io.fabric8.")) {
            return;
        }
        additionalProperties(value).keySet().forEach(field -> unknown.add(join(path, String.valueOf(field))));
        BeanDescription description = json.getSerializationConfig().introspect(json.constructType(value.getClass()));
        for (BeanPropertyDefinition property : description.findProperties()) {
            AnnotatedMember accessor = property.getAccessor();
            if (accessor == null || property.getName().equals("additionalProperties")) {
                continue;
            }
            collectUnknownFields(accessor.getValue(value), join(path, property.getName()), unknown);
        }
    }

    private static Map<?, ?> additionalProperties(Object model) {
        try {
            Method getter = model.getClass().getMethod("getAdditionalProperties");
            Object properties = getter.invoke(model);
            return properties instanceof Map<?, ?> map ? map : Map.of();
        } catch (NoSuchMethodException e) {
            return Map.of();
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read the unknown fields of " + model.getClass().getName(), e);
        }
    }

    private static String join(String path, String field) {
        return path.isEmpty() ? field : path + "." + field;
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
