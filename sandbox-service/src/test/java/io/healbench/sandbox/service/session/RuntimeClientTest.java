package io.healbench.sandbox.service.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.healbench.sandbox.service.SandboxException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The control channel is the program's too: whatever a hostile program writes under an awaited command's id reaches the
 * client. Over a real Unix socket, a "runtime" answers each command with a line the test chooses; the client's reader is
 * the session's (decode, then answer the awaited id).
 */
class RuntimeClientTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path workspace;

    @Test
    void aReplyOfTheWrongKindUnderTheAwaitedIdIsTheRuntimesFailureNotACast() throws Exception {
        SandboxException wrongKind = assertThrows(SandboxException.class, () -> withRuntime(
                command -> "{\"type\":\"heal_result\",\"id\":\"" + command.path("id").asText() + "\",\"ok\":true}",
                client -> client.probe("x", false, Duration.ofSeconds(1), WAIT)));
        assertEquals("RUNTIME_FAILED", wrongKind.reason());
        assertTrue(wrongKind.getMessage().contains("answered 'probe' with HealReply"), wrongKind.getMessage());
    }

    @Test
    void aReplyUnderAnotherIdIsNotTakenForTheAnswer() throws Exception {
        SandboxException unanswered = assertThrows(SandboxException.class, () -> withRuntime(
                command -> "{\"type\":\"probe_result\",\"id\":\"someone-else\",\"ok\":true,\"value\":\"42\"}",
                client -> client.probe("x", false, Duration.ofSeconds(1), Duration.ofMillis(500))));
        assertEquals("RUNTIME_TIMEOUT", unanswered.reason());
    }

    @Test
    void theRightReplyIsTheAnswer() throws Exception {
        assertEquals("42", withRuntime(
                command -> "{\"type\":\"probe_result\",\"id\":\"" + command.path("id").asText() + "\",\"ok\":true,\"value\":\"42\"}",
                client -> client.probe("x", false, Duration.ofSeconds(1), WAIT)).value());
    }

    /** Runs {@code call} against a runtime that answers each command line with {@code reply} of it. */
    private <T> T withRuntime(Function<JsonNode, String> reply, Function<RuntimeClient, T> call) throws Exception {
        Path socket = workspace.resolve("control.sock");
        RuntimeClient client = new RuntimeClient("sessions/test");
        try (RuntimeChannel channel = RuntimeChannel.listen(socket);
             SocketChannel runtime = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            runtime.connect(UnixDomainSocketAddress.of(socket));
            BufferedReader fromRuntime = channel.accept();
            client.attach(channel);
            // Both threads end when the channels close at the end of this block.
            daemon(() -> readReplies(fromRuntime, client));
            daemon(() -> answerCommands(runtime, reply));
            return call.apply(client);
        }
    }

    private static void daemon(Runnable body) {
        Thread thread = new Thread(body, "runtime-client-test");
        thread.setDaemon(true);
        thread.start();
    }

    private static void readReplies(BufferedReader lines, RuntimeClient client) {
        try {
            for (String line; (line = lines.readLine()) != null; ) {
                RuntimeMessage message = RuntimeMessageDecoder.decode(line);
                String id = message instanceof RuntimeMessage.ProbeReply probe ? probe.id()
                        : message instanceof RuntimeMessage.HealReply heal ? heal.id() : null;
                if (client.awaits(id)) {
                    client.answer(id, message);
                }
            }
        } catch (Exception closed) {
            // the test is over
        }
    }

    private static void answerCommands(SocketChannel runtime, Function<JsonNode, String> reply) {
        try {
            BufferedReader commands = new BufferedReader(new InputStreamReader(Channels.newInputStream(runtime), StandardCharsets.UTF_8));
            for (String line; (line = commands.readLine()) != null; ) {
                runtime.write(ByteBuffer.wrap((reply.apply(JSON.readTree(line)) + "\n").getBytes(StandardCharsets.UTF_8)));
            }
        } catch (Exception closed) {
            // the test is over
        }
    }
}
