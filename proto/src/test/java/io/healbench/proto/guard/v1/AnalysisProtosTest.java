package io.healbench.proto.guard.v1;

import io.healbench.common.heal.Resume;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.healbench.common.guard.HealAnalysis;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The sandbox sends the analysis with the one mapper and guard-service reads it back with it: nothing is lost. */
class AnalysisProtosTest {

    @Test
    void everyFieldSurvivesTheRequest() {
        HealAnalysis analysis = new HealAnalysis(2,
                List.of(new HealAnalysis.DeltaEntry("attr:job.out", "both", "'a'", "'b'", List.of("view"))), true,
                new HealAnalysis.CrashPoint("m.py", "f", "C.f", 3, 4, 5, 9, "if", Resume.RETRY,
                        List.of(new HealAnalysis.CallSite("n.py", "g", "g", 7, 8, 7, 14, true))),
                List.of(new HealAnalysis.ModuleTree("m.py", "m", "{\"_type\": \"Module\", \"body\": []}")), true);

        AnalyzeHealRequest request = AnalysisProtos.request("x = 1", analysis, "{\"operations\": {}}");

        assertEquals(analysis, AnalysisProtos.analysis(request));
        assertEquals("x = 1", request.getHealCode());
        assertEquals("{\"operations\": {}}", request.getPolicyJson());
    }
}
