package io.healbench.testsupport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/** The machine's own PostgreSQL and RabbitMQ, where {@code deploy/local/services.sh} starts them: the tests use these. */
final class LocalServices {

    static final String HOST = "127.0.0.1";
    private static final int CONNECT_TIMEOUT_MILLIS = 3000;

    private LocalServices() {
    }

    /** Fails, saying how to start it, unless {@code service} listens on its port. */
    static void requireListening(String service, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(HOST, port), CONNECT_TIMEOUT_MILLIS);
        } catch (IOException e) {
            throw new IllegalStateException(service + " is not reachable on " + HOST + ":" + port + " (" + e.getMessage()
                    + "); the tests need the machine's own, started by deploy/local/services.sh");
        }
    }
}
