package io.healbench.proto.agent.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class AgentUsageProtosTest {

    @Test
    void everyFieldSurvivesTheWayToTheMessageAndBack() {
        // Distinct values in every field, so that two fields swapped in either direction show.
        io.healbench.common.usage.AgentUsage usage = new io.healbench.common.usage.AgentUsage(
                3, 1200, 400, 90, 0.75, false, 5, 6, 7, 8, 9, List.of("healed", "reraised"), true);
        assertEquals(usage, AgentUsageProtos.fromProto(AgentUsageProtos.toProto(usage)));
    }

    @Test
    void anAttemptWithoutModelCallsCountsAsPriced() {
        assertTrue(AgentUsageProtos.fromProto(AgentUsage.newBuilder().setPriced(false).build()).priced());
        assertFalse(AgentUsageProtos.fromProto(AgentUsage.newBuilder().setLlmCalls(1).setPriced(false).build()).priced());
    }
}
