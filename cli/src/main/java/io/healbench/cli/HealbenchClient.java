package io.healbench.cli;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;
import io.healbench.common.dataset.InstanceFormatException;
import io.healbench.proto.bench.v1.BenchServiceGrpc;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * The thin client: {@code run}, {@code runs} and {@code agents} against a platform given by {@code --server}, with no
 * service in this JVM. The standalone app uses the same calls, over loopback, for its own services.
 */
public final class HealbenchClient {

    private static final String NEEDS_SERVER = "healbench: the client works against a platform: give --server HOST:PORT";

    private HealbenchClient() {
    }

    public static void main(String... args) {
        System.exit(run(args, home(), System.out, System.err));
    }

    static int run(String[] args, Path home, PrintStream out, PrintStream err) {
        if (args.length > 0 && args[0].equals("agents")) {
            return AgentsCommand.run(Arrays.copyOfRange(args, 1, args.length), home, out, err);
        }
        if (args.length > 0 && args[0].equals("runs")) {
            RunsCommand.Target target = RunsCommand.Target.parse(Arrays.copyOfRange(args, 1, args.length));
            if (target.server() == null) {
                err.println(NEEDS_SERVER);
                return ExitStatus.USAGE;
            }
            return runs(target, home, out);
        }
        try {
            DatasetSlice slice = resolveRun(args, home, out, err);
            if (slice.arguments().standalone()) {
                err.println(NEEDS_SERVER);
                return ExitStatus.USAGE;
            }
            return runRemote(slice.arguments(), home);
        } catch (Exit exit) {
            return exit.status();
        }
    }

    /** The repository root: dataset/, healrt/ and runs/ live under it. */
    public static Path home() {
        String configured = System.getProperty("healbench.home", System.getenv("HEALBENCH_HOME"));
        return Path.of(configured == null ? "." : configured).toAbsolutePath().normalize();
    }

    /** A run's arguments, and its slice from the local dataset, said on {@code out}; why not, on {@code err}. */
    public static DatasetSlice resolveRun(String[] args, Path home, PrintStream out, PrintStream err) throws Exit {
        DatasetSlice slice;
        try {
            slice = DatasetSlice.resolve(CliArguments.parse(args), home.resolve("dataset"));
        } catch (CliArguments.UsageException e) {
            err.println("healbench: " + e.getMessage());
            err.println(CliArguments.USAGE);
            throw new Exit(ExitStatus.USAGE);
        } catch (InstanceFormatException e) {
            err.println("healbench: the dataset is malformed: " + e.getMessage());
            throw new Exit(ExitStatus.NOT_READY);
        }
        out.println(slice.description());
        return slice;
    }

    /** {@code runs ...} against {@code --server}. */
    public static int runs(RunsCommand.Target target, Path home, PrintStream out) {
        ManagedChannel channel = ManagedChannelBuilder.forTarget(target.server()).usePlaintext().build();
        try {
            return new RunsCommand(remoteStub(channel, target.token()), home.resolve("runs"), out).run(target.rest());
        } finally {
            close(channel);
        }
    }

    /** A run on the platform at {@code --server}, followed on the console. */
    public static int runRemote(CliArguments args, Path home) {
        ManagedChannel channel = ManagedChannelBuilder.forTarget(args.server()).usePlaintext().build();
        try {
            return RunDriver.runOnConsole(remoteStub(channel, args.token()), home.resolve("runs"), args, null);
        } finally {
            close(channel);
        }
    }

    /** bench-service's API on a server, with the caller's bearer token when one is given. */
    private static BenchServiceGrpc.BenchServiceBlockingStub remoteStub(ManagedChannel channel, String token) {
        BenchServiceGrpc.BenchServiceBlockingStub stub = BenchServiceGrpc.newBlockingStub(channel);
        return token == null ? stub : withBearer(stub, token);
    }

    /** {@code stub} presenting {@code token} as its bearer on every call. */
    public static BenchServiceGrpc.BenchServiceBlockingStub withBearer(BenchServiceGrpc.BenchServiceBlockingStub stub,
            String token) {
        Metadata headers = new Metadata();
        headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
        return stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
    }

    private static void close(ManagedChannel channel) {
        channel.shutdownNow();
        try {
            channel.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The command ends here, with this exit status; what went wrong is already said. */
    public static final class Exit extends Exception {
        private final int status;

        public Exit(int status) {
            super(null, null, false, false);
            this.status = status;
        }

        public int status() {
            return status;
        }
    }
}
