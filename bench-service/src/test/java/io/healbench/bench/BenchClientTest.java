package io.healbench.bench;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** A test of the running bench-service through its clients, open for the whole test class. */
abstract class BenchClientTest {

    static BenchTestClients clients;

    @BeforeAll
    static void connect() {
        clients = new BenchTestClients();
    }

    @AfterAll
    static void disconnect() {
        clients.close();
    }
}
