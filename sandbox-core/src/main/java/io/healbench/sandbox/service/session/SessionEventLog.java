package io.healbench.sandbox.service.session;

import io.healbench.sandbox.service.model.SessionEvent;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.subscription.BackPressureStrategy;
import io.smallrye.mutiny.subscription.MultiEmitter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Every event of one session, kept for replay. A watcher gets all past events and then the live ones; the
 * stream completes after FINISHED, or when the session is closed.
 *
 * <p>Bounded: past {@link #MAX_EVENTS} the events a program can multiply (guard decisions, output, probe answers) are
 * dropped, with one event saying so; crashes, heal answers and FINISHED are always kept, and there can be no more of
 * those than the heal-point cap allows. A watcher's buffer holds at most what the log holds, so it is bounded too.
 */
final class SessionEventLog {

    static final int MAX_EVENTS = 10_000;

    private final String session;
    private final List<SessionEvent> events = new ArrayList<>();
    private final List<MultiEmitter<? super SessionEvent>> followers = new ArrayList<>();
    private boolean complete;
    private long dropped;

    SessionEventLog(String session) {
        this.session = session;
    }

    synchronized SessionEvent append(SessionEvent.Payload payload) {
        SessionEvent event = new SessionEvent(session, events.size() + 1L, Instant.now(), payload);
        if (complete) {
            return event; // nothing is recorded after the end; late output of a dying process is dropped
        }
        if (events.size() >= MAX_EVENTS && !essential(payload)) {
            if (dropped++ == 0) {
                record(new SessionEvent(session, events.size() + 1L, Instant.now(), new SessionEvent.Output(
                        "[sandbox] event limit of " + MAX_EVENTS + " reached; further guard decisions, output and probe answers"
                                + " of this session are dropped\n")));
            }
            return event;
        }
        record(event);
        return event;
    }

    /** The events a session's story needs, whatever the program floods the log with. */
    private static boolean essential(SessionEvent.Payload payload) {
        return payload instanceof SessionEvent.Crashed || payload instanceof SessionEvent.HealAnswered
                || payload instanceof SessionEvent.Finished;
    }

    /** Events dropped past the limit. */
    synchronized long dropped() {
        return dropped;
    }

    private void record(SessionEvent event) {
        SessionEvent.Payload payload = event.payload();
        events.add(event);
        followers.forEach(f -> f.emit(event));
        if (payload instanceof SessionEvent.Finished) {
            completeFollowers();
        }
    }

    /** Ends every stream (the session was closed). */
    synchronized void close() {
        completeFollowers();
    }

    synchronized List<SessionEvent> snapshot() {
        return List.copyOf(events);
    }

    Multi<SessionEvent> watch() {
        return Multi.createFrom().emitter(emitter -> {
            synchronized (this) {
                events.forEach(emitter::emit);
                if (complete) {
                    emitter.complete();
                    return;
                }
                followers.add(emitter);
            }
            emitter.onTermination(() -> {
                synchronized (this) {
                    followers.remove(emitter);
                }
            });
        }, BackPressureStrategy.BUFFER);
    }

    private void completeFollowers() {
        complete = true;
        List<MultiEmitter<? super SessionEvent>> done = List.copyOf(followers);
        followers.clear();
        done.forEach(MultiEmitter::complete);
    }
}
