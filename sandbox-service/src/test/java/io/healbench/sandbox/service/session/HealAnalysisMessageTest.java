package io.healbench.sandbox.service.session;

import io.healbench.common.heal.Resume;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.common.guard.HealAnalysis;
import io.healbench.sandbox.service.model.HealOutcome;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The static stage's messages on the control channel: heal_analysis decoded, an aborted heal a rejection. */
class HealAnalysisMessageTest {

    @Test
    void healAnalysisCarriesDeltaCrashPointAndModules() {
        String deep = "{\"_type\": \"Expr\", \"value\": ".repeat(1500) + "{\"_type\": \"Constant\", \"value\": 1}" + "}".repeat(1500);
        String line = "{\"type\": \"heal_analysis\", \"id\": \"h1\", \"heal_point\": 2, \"delta\": [{\"location\": \"name:x\","
                + " \"kind\": \"both\", \"before\": null, \"after\": \"1\"}], \"delta_truncated\": false,"
                + " \"crash_point\": {\"file\": \"m.py\", \"function\": \"f\", \"qualname\": \"C.f\", \"line\": 3, \"col\": 4,"
                + " \"end_line\": 3, \"end_col\": 9, \"kind\": \"assign\", \"resume\": \"retry\", \"callers\": [{\"file\": \"n.py\","
                + " \"function\": \"g\", \"qualname\": \"g\", \"line\": 7, \"col\": 8, \"end_line\": 7, \"end_col\": 14,"
                + " \"through_library\": true}]},"
                + " \"modules\": [{\"file\": \"m.py\", \"module\": \"m\", \"ast\": {\"_type\": \"Module\", \"body\": [" + deep + "]}}],"
                + " \"modules_truncated\": true}";

        RuntimeMessage.HealAnalysisReady ready = assertInstanceOf(RuntimeMessage.HealAnalysisReady.class, RuntimeMessageDecoder.decode(line));

        assertEquals("h1", ready.id());
        HealAnalysis analysis = ready.analysis();
        assertEquals(2, analysis.healPoint());
        assertEquals(List.of(new HealAnalysis.DeltaEntry("name:x", "both", "", "1", List.of())), analysis.delta());
        assertEquals(new HealAnalysis.CrashPoint("m.py", "f", "C.f", 3, 4, 3, 9, "assign", Resume.RETRY,
                List.of(new HealAnalysis.CallSite("n.py", "g", "g", 7, 8, 7, 14, true))), analysis.crashPoint());
        assertEquals("m", analysis.modules().get(0).module());
        assertTrue(analysis.modules().get(0).astJson().startsWith("{\"_type\":\"Module\",\"body\":[{\"_type\":\"Expr\""));
        assertTrue(analysis.modulesTruncated());
    }

    @Test
    void aResumeHealrtDoesNotSpellIsAMalformedMessage() {
        String line = "{\"type\": \"heal_analysis\", \"id\": \"h1\", \"heal_point\": 1, \"delta\": [],"
                + " \"crash_point\": {\"file\": \"m.py\", \"qualname\": \"f\", \"line\": 1, \"kind\": \"assign\","
                + " \"resume\": \"sideways\"}, \"modules\": []}";

        RuntimeMessage.Malformed malformed = assertInstanceOf(RuntimeMessage.Malformed.class, RuntimeMessageDecoder.decode(line));

        assertTrue(malformed.problem().contains("resume must be skip, retry or return, got 'sideways'"), malformed::toString);
    }

    @Test
    void anAbortedHealIsARejection() {
        RuntimeMessage.HealReply reply = assertInstanceOf(RuntimeMessage.HealReply.class, RuntimeMessageDecoder.decode(
                "{\"type\": \"heal_result\", \"id\": \"h1\", \"ok\": false, \"error\": {\"reason\": \"aborted\", \"message\": \"tainted\"},"
                        + " \"changed\": [], \"resume\": \"skip\"}"));
        assertEquals(new HealOutcome.HealError(true, "ABORTED", "tainted"), reply.outcome().error());
    }
}
