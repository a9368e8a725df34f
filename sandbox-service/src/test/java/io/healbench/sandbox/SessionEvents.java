package io.healbench.sandbox;

import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.ErrorInfo;
import com.google.rpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.healbench.proto.sandbox.v1.SandboxService;
import io.healbench.proto.sandbox.v1.SessionEvent;
import io.healbench.proto.sandbox.v1.WatchSessionRequest;
import io.smallrye.mutiny.subscription.Cancellable;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/** Records a session's WatchSession stream and waits for events in it; plus error helpers for the tests. */
final class SessionEvents implements AutoCloseable {

    private final List<SessionEvent> events = new CopyOnWriteArrayList<>();
    private final Cancellable subscription;
    private volatile Throwable failure;
    private volatile boolean completed;

    SessionEvents(SandboxService sandbox, String session) {
        subscription = sandbox.watchSession(WatchSessionRequest.newBuilder().setName(session).build())
                .subscribe().with(events::add, f -> failure = f, () -> completed = true);
    }

    List<SessionEvent> all() {
        return List.copyOf(events);
    }

    boolean completed() {
        return completed;
    }

    SessionEvent await(String what, Predicate<SessionEvent> matching, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Optional<SessionEvent> found = events.stream().filter(matching).findFirst();
            if (found.isPresent()) {
                return found.get();
            }
            if (failure != null) {
                fail("WatchSession failed while waiting for " + what + ": " + failure);
            }
            if (completed) {
                fail("WatchSession ended without " + what + "; events: " + describe());
            }
            sleep(100);
        }
        return fail("no " + what + " within " + timeout.toSeconds() + " s; events: " + describe());
    }

    String describe() {
        StringBuilder out = new StringBuilder();
        for (SessionEvent e : events) {
            out.append("\n  #").append(e.getSequence()).append(' ').append(e.getKindCase()).append(": ");
            String text = e.getKindCase() == SessionEvent.KindCase.OUTPUT ? e.getOutput() : e.toString();
            out.append(text.length() > 1500 ? text.substring(0, 1500) + "..." : text);
        }
        return out.toString();
    }

    @Override
    public void close() {
        subscription.cancel();
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The ErrorInfo reason carried by a google.rpc.Status. */
    static String reason(Status status) {
        for (Any detail : status.getDetailsList()) {
            if (detail.is(ErrorInfo.class)) {
                try {
                    return detail.unpack(ErrorInfo.class).getReason();
                } catch (InvalidProtocolBufferException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return fail("status without ErrorInfo: " + status);
    }

    static String reason(StatusRuntimeException e) {
        Status status = StatusProto.fromThrowable(e);
        if (status == null) {
            return fail("error without google.rpc.Status details: " + e);
        }
        return reason(status);
    }
}
