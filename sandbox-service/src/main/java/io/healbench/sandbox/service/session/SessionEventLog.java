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
 */
final class SessionEventLog {

    private final String session;
    private final List<SessionEvent> events = new ArrayList<>();
    private final List<MultiEmitter<? super SessionEvent>> followers = new ArrayList<>();
    private boolean complete;

    SessionEventLog(String session) {
        this.session = session;
    }

    synchronized SessionEvent append(SessionEvent.Payload payload) {
        SessionEvent event = new SessionEvent(session, events.size() + 1L, Instant.now(), payload);
        if (complete) {
            return event; // nothing is recorded after the end; late output of a dying process is dropped
        }
        events.add(event);
        followers.forEach(f -> f.emit(event));
        if (payload instanceof SessionEvent.Finished) {
            completeFollowers();
        }
        return event;
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
