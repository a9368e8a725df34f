package io.healbench.bench.service;

import io.quarkus.vertx.core.runtime.context.VertxContextSafetyToggle;
import io.smallrye.common.vertx.VertxContext;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * Where reactive work runs. Hibernate Reactive needs a safe duplicated Vert.x context on its event
 * loop; message consumers and WatchRun's timers are not always on one, and file IO must not block
 * the event loop.
 */
@ApplicationScoped
public class BenchContexts {

    private final Vertx vertx;

    public BenchContexts(Vertx vertx) {
        this.vertx = vertx;
    }

    /** Runs {@code work} on a new safe duplicated context and delivers its result there. */
    public <T> Uni<T> onFreshContext(Supplier<Uni<T>> work) {
        return Uni.createFrom().emitter(emitter -> {
            Context context = VertxContext.createNewDuplicatedContext(vertx.getOrCreateContext());
            VertxContextSafetyToggle.setContextSafe(context, true);
            context.runOnContext(ignored -> {
                Uni<T> uni;
                try {
                    uni = work.get();
                } catch (RuntimeException e) {
                    emitter.fail(e);
                    return;
                }
                uni.subscribe().with(emitter::complete, emitter::fail);
            });
        });
    }

    /** Runs blocking {@code work} on a worker thread; the result comes back on the caller's context. */
    public <T> Uni<T> blocking(Callable<T> work) {
        Context context = Vertx.currentContext();
        if (context == null) {
            return Uni.createFrom().item(() -> {
                try {
                    return work.call();
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        return Uni.createFrom().completionStage(() -> context.executeBlocking(work, false).toCompletionStage());
    }
}
