package io.healbench.agent.service.llm;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/** One action an agent asked for: a tool of the {@link ActionCatalog}, its arguments, and the call's id (if any). */
public record Action(String tool, String callId, Map<String, Object> arguments) {

    public Action {
        Objects.requireNonNull(tool, "tool");
        callId = callId == null ? "" : callId;
        // In the order given: the trajectory of a replay must match its recording byte for byte.
        arguments = Collections.unmodifiableMap(new LinkedHashMap<>(arguments));
    }
}
