package io.healbench.agent.llmstub;

import com.fasterxml.jackson.databind.ObjectMapper;

/** The one JSON mapper of the stub: requests are read with it and replies written, so sizes counted for usage match the wire. */
final class StubJson {

    static final ObjectMapper MAPPER = new ObjectMapper();

    private StubJson() {
    }
}
