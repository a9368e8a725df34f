package io.healbench.bench.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.util.JsonFormat;
import io.healbench.bench.repository.BenchAttemptEvent;
import io.healbench.bench.service.BenchIncomingEvent;
import io.healbench.common.outcome.ExitCause;
import io.healbench.common.outcome.FailureClass;
import io.healbench.proto.events.v1.AttemptEvent;
import io.healbench.proto.outcome.v1.ResumeMode;
import io.healbench.testsupport.PostgresTestResource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A run graded before the outcome counters became one message must re-grade exactly as it was graded: its stored
 * completion and heal events (protobuf JSON of the old messages) are rewritten by V6 and read back by the same reader the
 * re-grading uses. On the machine's PostgreSQL, in a database of the test's own, migrated to V5 first.
 */
class StoredEventsMigrationTest {

    private final PostgresTestResource postgres = new PostgresTestResource();
    private String url;

    @BeforeEach
    void createDatabaseAtV5() {
        url = postgres.start().get("quarkus.datasource.jdbc.url");
        flyway("5").migrate();
    }

    @AfterEach
    void dropDatabase() {
        postgres.stop();
    }

    @Test
    void completionEventsStoredBeforeV6ReadBackWithTheirCountersCauseAndClass() throws Exception {
        store("healed/completed", "{\"eventId\":\"healed/completed\",\"runId\":\"r\",\"attemptId\":\"healed\",\"completed\":{"
                + "\"proceeded\":true,\"passed\":true,\"healPoints\":2,\"healsApplied\":1,\"healsRejected\":1,"
                + "\"exceptionType\":\"KeyError\",\"exitCause\":\"exited\",\"wallTimeMs\":\"812\",\"failureClass\":\"none\","
                + "\"detail\":\"ok\",\"traceSimilarity\":0.75}}");
        store("raised/completed", "{\"eventId\":\"raised/completed\",\"runId\":\"r\",\"attemptId\":\"raised\",\"completed\":{"
                + "\"healPoints\":1,\"exitCause\":\"error: UsageError: bad args\",\"failureClass\":\"infrastructure\","
                + "\"detail\":\"pytest said so\"}}");
        store("odd/completed", "{\"eventId\":\"odd/completed\",\"runId\":\"r\",\"attemptId\":\"odd\",\"completed\":{"
                + "\"exitCause\":\"sandbox-died\",\"failureClass\":\"agent\"}}");
        store("own/completed", "{\"source\":\"bench-service\",\"detail\":\"could not be queued\"}");
        store("healed/heal_applied/1", "heal_applied", "{\"eventId\":\"healed/heal_applied/1\",\"healApplied\":{"
                + "\"healPoint\":1,\"code\":\"x = 0\",\"resume\":\"retry\"}}");

        flyway(null).migrate();

        BenchIncomingEvent.Outcome healed = read("healed/completed");
        assertTrue(healed.proceeded() && healed.passed(), healed.toString());
        assertEquals(2, healed.healPoints());
        assertEquals(1, healed.healsApplied());
        assertEquals(1, healed.healsRejected());
        assertEquals(ExitCause.EXITED, healed.exitCause());
        assertEquals(812, healed.wallTimeMs());
        assertEquals(FailureClass.NONE, healed.failureClass());
        assertEquals("KeyError", healed.exceptionType());
        assertEquals(0.75, healed.traceSimilarity(), 1e-9);

        BenchIncomingEvent.Outcome raised = read("raised/completed");
        assertEquals(ExitCause.ERROR, raised.exitCause());
        assertEquals("the test runner raised UsageError: bad args; pytest said so", raised.detail(),
                "the harness error's text moves from the cause to the detail, and nothing is lost");
        assertEquals(FailureClass.INFRASTRUCTURE, raised.failureClass());
        assertEquals(1, raised.healPoints());
        assertFalse(raised.proceeded());

        BenchIncomingEvent.Outcome odd = read("odd/completed");
        assertEquals(ExitCause.ERROR, odd.exitCause(), "a cause no build knows is kept as an error");
        assertEquals(FailureClass.AGENT, odd.failureClass());

        BenchIncomingEvent.Outcome own = read("own/completed");
        assertEquals(ExitCause.NOT_STARTED, own.exitCause());
        assertEquals(FailureClass.INFRASTRUCTURE, own.failureClass());

        AttemptEvent.Builder healApplied = AttemptEvent.newBuilder();
        JsonFormat.parser().merge(payload("healed/heal_applied/1"), healApplied);
        assertEquals(ResumeMode.RETRY, healApplied.getHealApplied().getResume());
    }

    private Flyway flyway(String target) {
        var configuration = Flyway.configure().dataSource(url, "postgres", null).locations("classpath:db/migration");
        return (target == null ? configuration : configuration.target(target)).load();
    }

    private void store(String eventId, String payload) throws Exception {
        store(eventId, "completed", payload);
    }

    private void store(String eventId, String kind, String payload) throws Exception {
        try (Connection connection = postgres.connect(); PreparedStatement insert = connection.prepareStatement(
                "insert into bench_attempt_event (event_id, tenant, run_id, attempt_id, kind, payload, event_time, receive_time)"
                        + " values (?, 't', 'r', ?, ?, ?, now(), now())")) {
            insert.setString(1, eventId);
            insert.setString(2, eventId.substring(0, eventId.indexOf('/')));
            insert.setString(3, kind);
            insert.setString(4, payload);
            insert.executeUpdate();
        }
    }

    private String payload(String eventId) throws Exception {
        try (Connection connection = postgres.connect(); PreparedStatement select = connection.prepareStatement(
                "select payload from bench_attempt_event where event_id = ?")) {
            select.setString(1, eventId);
            try (ResultSet row = select.executeQuery()) {
                assertTrue(row.next(), eventId);
                return row.getString(1);
            }
        }
    }

    private BenchIncomingEvent.Outcome read(String eventId) throws Exception {
        BenchAttemptEvent stored = new BenchAttemptEvent();
        try (Connection connection = postgres.connect(); PreparedStatement select = connection.prepareStatement(
                "select tenant, run_id, attempt_id, kind, payload from bench_attempt_event where event_id = ?")) {
            select.setString(1, eventId);
            try (ResultSet row = select.executeQuery()) {
                assertTrue(row.next(), eventId);
                stored.eventId = eventId;
                stored.tenant = row.getString(1);
                stored.runId = row.getString(2);
                stored.attemptId = row.getString(3);
                stored.kind = row.getString(4);
                stored.payload = row.getString(5);
                stored.eventTime = Instant.EPOCH;
            }
        }
        return new BenchStoredEventReader(new ObjectMapper()).read(stored).outcome();
    }
}
