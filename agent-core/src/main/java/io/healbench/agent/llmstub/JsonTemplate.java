package io.healbench.agent.llmstub;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A tool call's scripted arguments: any JSON value whose strings, at any depth, may hold templates. Compiled
 * once when the script loads (so template errors name their place), rendered into a fresh tree per reply.
 */
interface JsonTemplate {

    JsonNode render(TemplateValues values);

    /** @param where the location for error messages; nested places are appended as {@code .key} or {@code [i]} */
    static JsonTemplate compile(JsonNode node, String where, int groupCount) {
        if (node.isTextual()) {
            TemplateText text = TemplateText.parse(node.asText(), where, groupCount);
            return values -> JsonNodeFactory.instance.textNode(text.render(values));
        }
        if (node.isObject()) {
            Map<String, JsonTemplate> fields = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                fields.put(field.getKey(), compile(field.getValue(), where + "." + field.getKey(), groupCount));
            }
            return values -> {
                ObjectNode out = JsonNodeFactory.instance.objectNode();
                fields.forEach((name, value) -> out.set(name, value.render(values)));
                return out;
            };
        }
        if (node.isArray()) {
            List<JsonTemplate> items = new ArrayList<>();
            for (int i = 0; i < node.size(); i++) {
                items.add(compile(node.get(i), where + "[" + i + "]", groupCount));
            }
            return values -> {
                ArrayNode out = JsonNodeFactory.instance.arrayNode();
                items.forEach(item -> out.add(item.render(values)));
                return out;
            };
        }
        JsonNode constant = node.deepCopy();
        return values -> constant.deepCopy();
    }
}
