package io.healbench.sandbox.service.session;

import io.healbench.common.heal.Resume;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.healbench.common.outcome.ExitCause;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxException.Kind;
import io.healbench.sandbox.service.model.HealOutcome;
import io.healbench.sandbox.service.model.ProbeOutcome;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The commands healrt understands (docs/control-protocol.md, "Controller to runtime"), one method each: it sends the
 * command and, where healrt answers, waits for the reply with the command's id. The session's reader hands replies in
 * ({@link #awaits}, {@link #answer}); when a command may be sent (paused or not, one at a time) is the session's call.
 */
final class RuntimeClient {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String sessionName;
    /** Replies awaited, by the id of the command that asked. */
    private final Map<String, CompletableFuture<RuntimeMessage>> pending = new ConcurrentHashMap<>();
    private volatile RuntimeChannel channel;

    RuntimeClient(String sessionName) {
        this.sessionName = sessionName;
    }

    void attach(RuntimeChannel runtimeChannel) {
        this.channel = runtimeChannel;
    }

    /** {@code limit} bounds the probe in the runtime; {@code replyTimeout} bounds the wait for its reply. */
    ProbeOutcome probe(String code, boolean inplace, Duration limit, Duration replyTimeout) {
        String id = UUID.randomUUID().toString();
        Map<String, Object> command = command("probe", id);
        command.put("code", code);
        command.put("inplace", inplace);
        command.put("timeout_s", limit.toMillis() / 1000.0);
        return exchange(id, command, RuntimeMessage.ProbeReply.class, replyTimeout).outcome();
    }

    /** A heal the runtime applies after its dry run without asking; its result. */
    HealOutcome heal(String code, Resume resume, Duration timeout) {
        String id = UUID.randomUUID().toString();
        return exchange(id, healCommand(id, code, resume, false), RuntimeMessage.HealReply.class, timeout).outcome();
    }

    /**
     * A heal with {@code analyze}: after its dry run the runtime reports the analysis and waits for {@link #commit} or
     * {@link #abort} of this heal (the analysis's id); a re-check or dry run that fails answers at once with the result.
     */
    RuntimeMessage.HealAnswer healForAnalysis(String code, Resume resume, Duration timeout) {
        String id = UUID.randomUUID().toString();
        try {
            return exchange(id, healCommand(id, code, resume, true), RuntimeMessage.HealAnswer.class, timeout);
        } catch (SandboxException e) {
            abortQuietly(id, "no analysis arrived in time");  // the runtime may be waiting for a decision
            throw e;
        }
    }

    /** heal_commit with the static verdict (a {@code clean} one waives healrt's bool/None rule for this heal); its result. */
    HealOutcome commit(String healId, String staticVerdict, Duration timeout) {
        Map<String, Object> command = command("heal_commit", healId);
        command.put("static_verdict", staticVerdict);
        return exchange(healId, command, RuntimeMessage.HealReply.class, timeout).outcome();
    }

    /** heal_abort: nothing is applied and the runtime stays paused at the same crash; the heal's (refused) result. */
    HealOutcome abort(String healId, String reason, Duration timeout) {
        return exchange(healId, abortCommand(healId, reason), RuntimeMessage.HealReply.class, timeout).outcome();
    }

    /** The crash propagates as if healrt were absent; healrt does not answer. */
    void reraise() {
        send(command("reraise", null));
    }

    /** True while a command with this id waits for its reply and has none yet. */
    boolean awaits(String id) {
        CompletableFuture<RuntimeMessage> waiting = id == null ? null : pending.get(id);
        return waiting != null && !waiting.isDone();
    }

    void answer(String id, RuntimeMessage reply) {
        CompletableFuture<RuntimeMessage> waiting = pending.get(id);
        if (waiting != null) {
            waiting.complete(reply);
        }
    }

    /** The process has ended: no awaited reply will come. */
    void runtimeEnded(ExitCause exitCause) {
        SandboxException gone = new SandboxException(Kind.FAILED_PRECONDITION, "SESSION_ENDED",
                sessionName + " ended (" + exitCause.wireName() + ") before the runtime answered");
        pending.values().forEach(waiting -> waiting.completeExceptionally(gone));
    }

    private static Map<String, Object> healCommand(String id, String code, Resume resume, boolean analyze) {
        Map<String, Object> command = command("heal", id);
        command.put("code", code);
        command.put("resume", resume.wireName());
        if (analyze) {
            command.put("analyze", true);
        }
        return command;
    }

    private static Map<String, Object> abortCommand(String healId, String reason) {
        Map<String, Object> command = command("heal_abort", healId);
        command.put("reason", reason);
        return command;
    }

    /** A command's fields in the order they go on the wire: {@code cmd}, its {@code id} if it has one, then the rest. */
    private static Map<String, Object> command(String cmd, String id) {
        Map<String, Object> command = new LinkedHashMap<>();
        command.put("cmd", cmd);
        if (id != null) {
            command.put("id", id);
        }
        return command;
    }

    private void abortQuietly(String healId, String reason) {
        try {
            send(abortCommand(healId, reason));
        } catch (SandboxException e) {
            // the runtime is gone; nothing waits for the decision
        }
    }

    /**
     * Sends one command and waits for the runtime's reply with its id. The channel is the program's too, so a reply of
     * another kind under that id is the runtime's failure, not a cast to trust.
     */
    private <T extends RuntimeMessage> T exchange(String id, Map<String, Object> command, Class<T> expected, Duration timeout) {
        CompletableFuture<RuntimeMessage> waiting = new CompletableFuture<>();
        pending.put(id, waiting);
        try {
            send(command);
            RuntimeMessage reply = waiting.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!expected.isInstance(reply)) {
                throw new SandboxException(Kind.INTERNAL, "RUNTIME_FAILED", sessionName + ": the runtime answered '"
                        + command.get("cmd") + "' with " + reply.getClass().getSimpleName());
            }
            return expected.cast(reply);
        } catch (TimeoutException e) {
            throw new SandboxException(Kind.DEADLINE_EXCEEDED, "RUNTIME_TIMEOUT",
                    sessionName + ": no answer to '" + command.get("cmd") + "' within " + timeout.toSeconds() + " s");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SandboxException sandbox) {
                throw sandbox;
            }
            throw new SandboxException(Kind.INTERNAL, "RUNTIME_FAILED", sessionName + ": " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SandboxException(Kind.INTERNAL, "INTERRUPTED", sessionName + ": interrupted while waiting for the runtime", e);
        } finally {
            pending.remove(id);
        }
    }

    /** One JSON line (no embedded newlines: JSON escapes them). */
    private void send(Map<String, Object> command) {
        RuntimeChannel current = channel;
        try {
            if (current == null) {
                throw new IOException("no control channel");
            }
            current.send(JSON.writeValueAsString(command));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot encode command " + command.get("cmd"), e);
        } catch (IOException e) {
            throw new SandboxException(Kind.FAILED_PRECONDITION, "RUNTIME_UNREACHABLE", sessionName + ": cannot send '"
                    + command.get("cmd") + "' to the runtime: " + e.getMessage(), e);
        }
    }
}
