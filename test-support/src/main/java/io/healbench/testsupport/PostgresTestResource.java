package io.healbench.testsupport;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.postgresql.Driver;

/**
 * The machine's PostgreSQL for one start of the app under test, with a database of its own: created at start (the app's
 * Flyway migrations then make its schema), dropped at stop. Runs of the tests in other checkouts on this machine, and
 * the test classes that start the app apart from this one, see none of its rows.
 *
 * <p>Also usable without Quarkus: a test that runs the services as processes calls {@link #start()} and passes the
 * properties on.
 */
public class PostgresTestResource implements QuarkusTestResourceLifecycleManager {

    static final int PORT = 5432;
    static final String USER = "postgres";
    private static final String SERVER = LocalServices.HOST + ":" + PORT + "/";

    private String database;

    @Override
    public Map<String, String> start() {
        LocalServices.requireListening("PostgreSQL", PORT);
        database = "healbench_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        execute("create database " + database);
        return Map.of(
                "quarkus.datasource.username", USER,
                "quarkus.datasource.jdbc.url", jdbcUrl(),
                "quarkus.datasource.reactive.url", "postgresql://" + SERVER + database);
    }

    /** This start's database, for a test that reads what the services stored. */
    public Connection connect() throws SQLException {
        return connect(jdbcUrl());
    }

    @Override
    public void stop() {
        if (database != null) {
            // FORCE: a pool of the app under test may still hold a connection.
            execute("drop database if exists " + database + " with (force)");
            database = null;
        }
    }

    private String jdbcUrl() {
        return "jdbc:postgresql://" + SERVER + database;
    }

    private static void execute(String sql) {
        try (Connection admin = connect("jdbc:postgresql://" + SERVER + "postgres"); Statement statement = admin.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("'" + sql + "' failed on the machine's PostgreSQL: " + e.getMessage(), e);
        }
    }

    /** Through the driver itself: DriverManager would look for it in the caller's class loader, which Quarkus tests replace. */
    private static Connection connect(String url) throws SQLException {
        Properties credentials = new Properties();
        credentials.setProperty("user", USER);
        return new Driver().connect(url, credentials);
    }
}
