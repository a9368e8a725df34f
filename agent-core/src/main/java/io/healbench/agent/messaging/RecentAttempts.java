package io.healbench.agent.messaging;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The attempts this worker took lately, and how often it gave each back to the queue. A second copy of an attempt it
 * holds is dropped (bench-service's outbox sends a message again when the broker never confirmed it, and that copy may
 * reach the worker that has the first); an attempt given back too often is not given back again. Bounded: the oldest
 * ids go first, long after their copies could still arrive.
 */
final class RecentAttempts {

    private static final int REMEMBERED = 10_000;

    private final Map<String, Boolean> taken = bounded();
    private final Map<String, Integer> requeues = bounded();

    private static <V> Map<String, V> bounded() {
        return new LinkedHashMap<>(256, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > REMEMBERED;
            }
        };
    }

    /** Takes the attempt; false when this worker holds it already (the message is a copy). */
    synchronized boolean take(String attemptId) {
        return taken.putIfAbsent(attemptId, Boolean.TRUE) == null;
    }

    /** Times this worker gave the attempt back to the queue. */
    synchronized int requeues(String attemptId) {
        return requeues.getOrDefault(attemptId, 0);
    }

    /** The attempt goes back to the queue: its next delivery must run here again. */
    synchronized void requeue(String attemptId) {
        taken.remove(attemptId);
        requeues.merge(attemptId, 1, Integer::sum);
    }
}
