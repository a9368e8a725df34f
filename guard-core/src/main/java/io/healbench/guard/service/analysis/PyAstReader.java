package io.healbench.guard.service.analysis;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Reads one exported module tree (JSON text) straight into {@link PyNode}s, without an intermediate JSON tree. */
final class PyAstReader {

    /** Deep enough for any tree CPython's own parser accepts (its recursion limit is lower). */
    private static final int MAX_DEPTH = 20_000;

    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH)
                    .maxStringLength(64 * 1024 * 1024).build())
            .build();

    private PyAstReader() {}

    static PyNode read(String json, String what) {
        try (JsonParser parser = JSON.createParser(json)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new AnalysisInputException(what + ": the tree must be a JSON object");
            }
            Object root = object(parser, what);
            if (!(root instanceof PyNode node) || !node.is("Module")) {
                throw new AnalysisInputException(what + ": the tree's root must be a Module node");
            }
            return node;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new AnalysisInputException(what + ": not a JSON tree: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new AnalysisInputException(what + ": not a JSON tree: " + e.getMessage());
        }
    }

    /** At START_OBJECT: a node when it has "_type", a {@link PyNode.Repr} for {"repr": ...}, else a plain map. */
    private static Object object(JsonParser parser, String what) throws IOException {
        Map<String, Object> fields = new HashMap<>();
        String type = null;
        int line = 0;
        int col = 0;
        int endLine = 0;
        int endCol = 0;
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            JsonToken token = parser.nextToken();
            switch (name) {
                case "_type" -> type = parser.getValueAsString();
                case "lineno" -> line = parser.getValueAsInt();
                case "col_offset" -> col = parser.getValueAsInt();
                case "end_lineno" -> endLine = parser.getValueAsInt();
                case "end_col_offset" -> endCol = parser.getValueAsInt();
                default -> fields.put(name, value(parser, token, what));
            }
        }
        if (type == null) {
            return fields.size() == 1 && fields.get("repr") instanceof String text ? new PyNode.Repr(text) : fields;
        }
        return new PyNode(type, fields, line, col, endLine == 0 ? line : endLine, endCol);
    }

    private static Object value(JsonParser parser, JsonToken token, String what) throws IOException {
        return switch (token) {
            case START_OBJECT -> object(parser, what);
            case START_ARRAY -> {
                List<Object> items = new ArrayList<>();
                JsonToken next;
                while ((next = parser.nextToken()) != JsonToken.END_ARRAY) {
                    items.add(value(parser, next, what));
                }
                yield items;
            }
            case VALUE_STRING -> parser.getText();
            case VALUE_NUMBER_INT -> parser.getNumberValue();
            case VALUE_NUMBER_FLOAT -> parser.getDoubleValue();
            case VALUE_TRUE -> Boolean.TRUE;
            case VALUE_FALSE -> Boolean.FALSE;
            case VALUE_NULL -> null;
            default -> throw new AnalysisInputException(what + ": unexpected JSON token " + token);
        };
    }
}
