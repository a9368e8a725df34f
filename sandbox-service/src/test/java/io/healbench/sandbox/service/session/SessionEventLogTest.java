package io.healbench.sandbox.service.session;

import io.healbench.common.outcome.ExitCause;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.common.guard.GuardDecision;
import io.healbench.common.guard.GuardStage;
import io.healbench.common.guard.GuardVerdict;
import io.healbench.sandbox.service.model.Outcome;
import io.healbench.sandbox.service.model.SessionEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A program that floods a session with events cannot grow its log (and every watcher's buffer) without bound. */
class SessionEventLogTest {

    @Test
    void aFloodIsCutAtTheLimitWithOneNoticeAndTheEssentialEventsStillArrive() {
        SessionEventLog log = new SessionEventLog("sessions/flood");
        int flood = SessionEventLog.MAX_EVENTS * 3;
        for (int i = 0; i < flood; i++) {
            log.append(new SessionEvent.GuardDecided(new GuardDecision(1, GuardStage.DYNAMIC, GuardVerdict.RECORDED, "flood " + i)));
        }
        log.append(new SessionEvent.Finished(Outcome.withoutReport(ExitCause.EXITED, 0, 1, "done")));

        List<SessionEvent> events = log.snapshot();
        assertEquals(SessionEventLog.MAX_EVENTS + 2, events.size(), "the limit, one notice, and FINISHED");
        SessionEvent notice = events.get(SessionEventLog.MAX_EVENTS);
        assertTrue(((SessionEvent.Output) notice.payload()).text().contains("event limit of " + SessionEventLog.MAX_EVENTS),
                notice.toString());
        assertInstanceOf(SessionEvent.Finished.class, events.get(events.size() - 1).payload());
        assertEquals(flood - SessionEventLog.MAX_EVENTS, log.dropped());
    }
}
