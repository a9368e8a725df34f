package io.healbench.sandbox.service.reference;

import io.healbench.common.dataset.Instance;
import io.healbench.sandbox.config.SandboxConfig;
import io.healbench.sandbox.service.InstanceLookup;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxException.Kind;
import io.healbench.sandbox.service.model.Outcome;
import io.healbench.sandbox.service.model.ReferenceComparison;
import io.healbench.sandbox.service.model.Variant;
import io.healbench.sandbox.service.trace.TraceSimilarity;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.jboss.logging.Logger;

/**
 * REFERENCE runs, recorded once per cache key (instance digest, interpreter, healrt) and then served from the cache.
 * A run goes through the ordinary session machinery without interception. Concurrent requests for the same key share
 * one run; runs use their own small pool, outside the live-session limit that bounds agent sessions.
 */
@ApplicationScoped
public class ReferenceRuns {

    private static final Logger LOG = Logger.getLogger(ReferenceRuns.class);

    private final SessionLauncher launcher;
    private final InstanceLookup instances;
    private final ReferenceCache cache;
    private final ExecutorService runners;
    private final Map<String, CompletableFuture<ReferenceRun>> inFlight = new ConcurrentHashMap<>();

    public ReferenceRuns(SessionLauncher launcher, InstanceLookup instances, ReferenceCache cache, SandboxConfig config) {
        this.launcher = launcher;
        this.instances = instances;
        this.cache = cache;
        AtomicInteger count = new AtomicInteger();
        this.runners = Executors.newFixedThreadPool(Math.max(1, config.referenceConcurrency()), r -> {
            Thread thread = new Thread(r, "healbench-reference-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** The instance's reference run: from the cache, or recorded now (waiting for it). */
    public ReferenceRun get(String instanceId) {
        try {
            return prepare(instances.get(instanceId)).get();
        } catch (ExecutionException e) {
            throw unwrap(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SandboxException(Kind.INTERNAL, "INTERRUPTED", "interrupted while waiting for the reference run of " + instanceId, e);
        }
    }

    /** Starts recording the reference run unless it is cached or already being recorded; never blocks. */
    public CompletableFuture<ReferenceRun> prepare(Instance instance) {
        Optional<ReferenceRun> cached = cache.find(instance);
        if (cached.isPresent()) {
            return CompletableFuture.completedFuture(cached.get());
        }
        String key = cache.key(instance);
        CompletableFuture<ReferenceRun> created = new CompletableFuture<>();
        CompletableFuture<ReferenceRun> running = inFlight.putIfAbsent(key, created);
        if (running != null) {
            return running;
        }
        runners.execute(() -> {
            try {
                created.complete(record(instance));
            } catch (RuntimeException e) {
                created.completeExceptionally(e);
            } finally {
                inFlight.remove(key, created);
            }
        });
        return created;
    }

    /**
     * A BUGGY run's outcome compared with the reference run: its trace similarity and overlap (docs/trace-similarity.md).
     * Completes when the reference run is available; without one, the outcome says why in its detail.
     */
    public CompletableFuture<Outcome> compare(Instance instance, Outcome outcome) {
        return prepare(instance).handle((run, failure) -> {
            if (failure != null) {
                return outcome.withDetail("trace similarity unavailable: " + unwrap(failure).getMessage());
            }
            TraceSimilarity.Result ts = TraceSimilarity.compare(outcome.trace(), run.outcome().trace());
            return outcome.withReference(new ReferenceComparison(ts.similarity(), ts.overlap(), run.outcome().passed()));
        });
    }

    private ReferenceRun record(Instance instance) {
        // Another request may have stored it between our cache check and this run.
        Optional<ReferenceRun> cached = cache.find(instance);
        if (cached.isPresent()) {
            return cached.get();
        }
        LOG.infof("recording the reference run of %s (python %s, %s)", instance.id(), instance.python(), instance.digest());
        UnattendedRun run = launcher.runUnattended(instance, Variant.REFERENCE);
        if (!run.reported()) {
            throw new SandboxException(Kind.FAILED_PRECONDITION, "REFERENCE_RUN_FAILED", "the reference run of " + instance.id()
                    + " ended without an outcome (" + run.outcome().exitCause().wireName() + ": " + run.outcome().detail() + "); it is not cached");
        }
        if (!run.outcome().passed()) {
            // A REFERENCE that fails is no reference: comparing with its trace would score against a broken run.
            throw new SandboxException(Kind.FAILED_PRECONDITION, "REFERENCE_RUN_FAILED", "the reference run of " + instance.id()
                    + " did not pass (" + run.outcome().detail() + "); it is not cached");
        }
        ReferenceRun recorded = new ReferenceRun(instance.id(), instance.digest(), instance.python(), run.outcome(), false);
        cache.store(instance, recorded);
        return recorded;
    }

    private static SandboxException unwrap(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        if (cause instanceof SandboxException sandbox) {
            return sandbox;
        }
        return new SandboxException(Kind.INTERNAL, "REFERENCE_RUN_FAILED", "the reference run failed: " + cause, cause);
    }

    @PreDestroy
    void stop() {
        runners.shutdownNow();
    }
}
