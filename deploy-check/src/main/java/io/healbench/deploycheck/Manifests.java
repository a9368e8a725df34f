package io.healbench.deploycheck;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads a stream of YAML documents (what {@code kubectl kustomize} writes) into manifests. */
public final class Manifests {

    private static final YAMLMapper YAML = new YAMLMapper();

    private Manifests() {
    }

    public static List<Manifest> parse(String yaml) {
        List<Manifest> manifests = new ArrayList<>();
        try (MappingIterator<JsonNode> documents = YAML.readerFor(JsonNode.class).readValues(yaml)) {
            while (documents.hasNextValue()) {
                JsonNode document = documents.nextValue();
                if (document != null && document.isObject() && !document.isEmpty()) {
                    manifests.add(new Manifest(document));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("not a stream of YAML documents", e);
        }
        return manifests;
    }

    public static List<Manifest> read(Path file) {
        try {
            return parse(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /** A YAML file as one tree (policy-exceptions.yaml). */
    static JsonNode tree(Path file) {
        try {
            return YAML.readTree(file.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }
}
