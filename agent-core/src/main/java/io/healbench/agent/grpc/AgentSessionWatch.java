package io.healbench.agent.grpc;

import io.healbench.agent.service.AgentSandbox;
import io.healbench.agent.service.AgentSandbox.Signal;
import io.healbench.proto.sandbox.v1.SessionEvent;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.subscription.Cancellable;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Buffers a WatchSession stream so the runner can take its signals one by one with a timeout.
 * Events the runner does not react to (output, probe and heal results, guard events) are dropped:
 * heal results come back from the Heal call itself, and the sandbox publishes guard events.
 */
final class AgentSessionWatch implements AgentSandbox.Watch {

    private final BlockingQueue<Object> items = new LinkedBlockingQueue<>();
    private final Cancellable subscription;

    AgentSessionWatch(String session, Multi<SessionEvent> events) {
        subscription = events.subscribe().with(
                items::add,
                failure -> items.add(new Signal.Ended(AgentSandboxCallFailures.of("WatchSession " + session, failure))),
                () -> items.add(new Signal.Ended(null)));
    }

    @Override
    public Optional<Signal> next(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                Object item = items.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                if (item == null) {
                    return Optional.empty();
                }
                if (item instanceof Signal signal) {
                    return Optional.of(signal);
                }
                SessionEvent event = (SessionEvent) item;
                if (event.hasCrashed()) {
                    return Optional.of(new Signal.Crashed(AgentSandboxProtoMapper.crash(event.getCrashed())));
                }
                if (event.hasFinished()) {
                    return Optional.of(new Signal.Finished(AgentSandboxProtoMapper.outcome(event.getFinished())));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    @Override
    public void close() {
        subscription.cancel();
    }
}
