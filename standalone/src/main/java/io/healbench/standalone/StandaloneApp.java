package io.healbench.standalone;

import io.healbench.cli.CliArguments;
import io.healbench.cli.ExternalEndpoint;
import io.healbench.cli.HealbenchClient;
import io.healbench.cli.RunDriver;
import io.healbench.cli.RunsCommand;
import io.healbench.proto.bench.v1.BenchServiceGrpc;
import io.quarkus.grpc.GrpcClient;
import io.quarkus.runtime.QuarkusApplication;
import java.nio.file.Path;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Standalone mode once the services are up: a run, or {@code runs ...}, through the same client path as remote mode, over loopback. */
public class StandaloneApp implements QuarkusApplication {

    private final BenchServiceGrpc.BenchServiceBlockingStub bench;
    private final Path home;
    private final ExternalEndpoint endpoint;

    public StandaloneApp(@GrpcClient("bench") BenchServiceGrpc.BenchServiceBlockingStub bench,
            @ConfigProperty(name = "healbench.home", defaultValue = ".") String home,
            @ConfigProperty(name = "quarkus.http.port") int port,
            @ConfigProperty(name = "healbench.agent.gateway.local-token") String token) {
        // The platform's API takes only the local token (StandaloneTokenCheck), from this process too.
        this.bench = HealbenchClient.withBearer(bench, token);
        this.home = Path.of(home);
        this.endpoint = ExternalEndpoint.onLoopback(port, token);
    }

    @Override
    public int run(String... args) {
        if (args.length > 0 && args[0].equals("runs")) {
            return new RunsCommand(bench, home.resolve("runs"), System.out).run(List.of(args).subList(1, args.length));
        }
        return RunDriver.runOnConsole(bench, home.resolve("runs"), CliArguments.parse(args), endpoint);
    }
}
