package io.healbench.deploycheck;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Schemas of the custom resources the manifests use (KEDA, the RabbitMQ messaging topology operator, the External
 * Secrets Operator), one JSON Schema per kind at {@code crd-schemas/<group>/<version>/<Kind>.json}. They cover the
 * fields HealBench uses and reject every other field, as fabric8's models do for the built-in kinds; a field the
 * operator supports but the schema lacks is added to the schema when a manifest needs it.
 */
final class CustomResourceSchemas {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

    private final Map<String, Optional<Schema>> loaded = new ConcurrentHashMap<>();

    /** The schema of {@code apiVersion}/{@code kind}, if this module has one. */
    Optional<Schema> schemaFor(String apiVersion, String kind) {
        if (!apiVersion.contains("/") || apiVersion.contains("..") || !kind.matches("[A-Za-z0-9]+")) {
            return Optional.empty();
        }
        return loaded.computeIfAbsent(apiVersion + "/" + kind, CustomResourceSchemas::load);
    }

    List<String> validate(Manifest manifest, Schema schema) {
        List<Error> errors = schema.validate(manifest.node());
        return errors.stream()
                .map(error -> manifest.id() + ": " + location(error) + error.getMessage())
                // A value that breaks a rule twice (the trigger's own and the rabbitmq trigger's) is one finding.
                .distinct()
                .toList();
    }

    private static String location(Error error) {
        String at = error.getInstanceLocation().toString();
        return at.isEmpty() || at.equals("$") ? "" : at + " ";
    }

    private static Optional<Schema> load(String apiVersionAndKind) {
        String resource = "crd-schemas/" + apiVersionAndKind + ".json";
        try (InputStream in = CustomResourceSchemas.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                return Optional.empty();
            }
            JsonNode document = JSON.readTree(in);
            return Optional.of(REGISTRY.getSchema(document));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the schema " + resource, e);
        }
    }
}
