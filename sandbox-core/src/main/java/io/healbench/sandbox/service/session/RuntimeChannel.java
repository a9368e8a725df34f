package io.healbench.sandbox.service.session;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The controller side of the healrt control channel: listens on the workspace's Unix socket, accepts the
 * runtime's one connection, reads its JSON lines and writes commands (docs/control-protocol.md).
 */
final class RuntimeChannel implements AutoCloseable {

    private final ServerSocketChannel server;
    private volatile SocketChannel connection;

    private RuntimeChannel(ServerSocketChannel server) {
        this.server = server;
    }

    static RuntimeChannel listen(Path socket) throws IOException {
        Files.deleteIfExists(socket);
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket), 1);
        return new RuntimeChannel(server);
    }

    /** Blocks until the runtime connects; fails when the channel is closed first (the process died). */
    BufferedReader accept() throws IOException {
        SocketChannel accepted = server.accept();
        connection = accepted;
        return new BufferedReader(new InputStreamReader(Channels.newInputStream(accepted), StandardCharsets.UTF_8));
    }

    boolean connected() {
        return connection != null && connection.isOpen();
    }

    /** Sends one command line; the caller has serialized it as single-line JSON. */
    synchronized void send(String jsonLine) throws IOException {
        SocketChannel channel = connection;
        if (channel == null || !channel.isOpen()) {
            throw new IOException("the runtime is not connected");
        }
        ByteBuffer bytes = ByteBuffer.wrap((jsonLine + "\n").getBytes(StandardCharsets.UTF_8));
        while (bytes.hasRemaining()) {
            channel.write(bytes);
        }
    }

    @Override
    public void close() {
        closeQuietly(server);
        SocketChannel channel = connection;
        if (channel != null) {
            closeQuietly(channel);
        }
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            // Closing is best effort: the process is ending anyway.
        }
    }
}
