package io.healbench.cli;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;

/** The standalone mode's PostgreSQL: a throwaway server in a temporary directory. */
final class EmbeddedDatabase implements AutoCloseable {

    static final String USER = "postgres";

    private final EmbeddedPostgres postgres;

    private EmbeddedDatabase(EmbeddedPostgres postgres) {
        this.postgres = postgres;
    }

    static EmbeddedDatabase start() throws IOException {
        return new EmbeddedDatabase(EmbeddedPostgres.builder().setCleanDataDirectory(true).start());
    }

    String reactiveUrl() {
        return "postgresql://127.0.0.1:" + postgres.getPort() + "/postgres";
    }

    @Override
    public void close() {
        try {
            postgres.close();
        } catch (IOException e) {
            System.err.println("healbench: embedded PostgreSQL did not stop cleanly: " + e.getMessage());
        }
    }
}
