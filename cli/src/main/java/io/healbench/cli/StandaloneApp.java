package io.healbench.cli;

import io.grpc.StatusRuntimeException;
import io.healbench.proto.bench.v1.BenchServiceGrpc;
import io.quarkus.grpc.GrpcClient;
import io.quarkus.runtime.QuarkusApplication;
import java.io.IOException;
import java.nio.file.Path;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Standalone mode once the services are up: the same client path as remote mode, over loopback. */
public class StandaloneApp implements QuarkusApplication {

    private final BenchServiceGrpc.BenchServiceBlockingStub bench;
    private final Path home;

    public StandaloneApp(@GrpcClient("bench") BenchServiceGrpc.BenchServiceBlockingStub bench,
            @ConfigProperty(name = "healbench.home", defaultValue = ".") String home) {
        this.bench = bench;
        this.home = Path.of(home);
    }

    @Override
    public int run(String... args) {
        CliArguments parsed = CliArguments.parse(args);
        try {
            return new RunDriver(bench, home.resolve("runs"), System.out, System.err, System.console() != null).run(parsed);
        } catch (StatusRuntimeException e) {
            System.err.println("healbench: " + RunDriver.describe(e));
            return 1;
        } catch (IOException e) {
            System.err.println("healbench: cannot write the report: " + e.getMessage());
            return 1;
        }
    }
}
