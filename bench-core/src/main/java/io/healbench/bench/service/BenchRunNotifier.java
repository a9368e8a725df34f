package io.healbench.bench.service;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/** In-JVM notices that a run changed, for the WatchRun streams open on it. */
@ApplicationScoped
public class BenchRunNotifier {

    private final ConcurrentMap<String, Set<Runnable>> listeners = new ConcurrentHashMap<>();

    /** Calls {@code onChange} after every committed change of the run; the returned action unsubscribes. */
    public Runnable subscribe(String tenant, String runId, Runnable onChange) {
        String key = key(tenant, runId);
        listeners.compute(key, (k, set) -> {
            Set<Runnable> live = set == null ? ConcurrentHashMap.newKeySet() : set;
            live.add(onChange);
            return live;
        });
        return () -> listeners.computeIfPresent(key, (k, set) -> {
            set.remove(onChange);
            return set.isEmpty() ? null : set;
        });
    }

    public void changed(String tenant, String runId) {
        Set<Runnable> set = listeners.get(key(tenant, runId));
        if (set != null) {
            set.forEach(Runnable::run);
        }
    }

    private static String key(String tenant, String runId) {
        return tenant + "/" + runId;
    }
}
