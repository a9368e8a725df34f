package io.healbench.standalone;

import io.healbench.bench.grpc.BenchAgentConfigs;
import io.healbench.bench.service.BenchBackbones;
import io.healbench.bench.service.BenchException;
import io.healbench.cli.AgentsCommand;
import io.healbench.cli.CliArguments;
import io.healbench.cli.ExitStatus;
import io.healbench.cli.LlmOptions;
import io.healbench.common.backbone.Backbone;
import io.healbench.common.backbone.BackboneCatalog;
import io.healbench.proto.agent.v1.CassetteMode;
import java.io.PrintStream;
import java.nio.file.Path;

/** The check a run's backbone passes before anything starts: it resolves, a money limit has prices, a required key is set. */
final class BackboneCheck {

    private BackboneCheck() {
    }

    /**
     * Refuses a run whose backbone cannot work before any attempt starts: an unknown one (usage), a cost limit on an
     * unpriced one (usage), a required key that is unset (not ready).
     */
    static int check(CliArguments args, Path home, PrintStream err) {
        LlmOptions llm = args.llm();
        if (!llm.given()) {
            return ExitStatus.COMPLETED;
        }
        Backbone backbone;
        try {
            // bench-service's own check, so the cli refuses exactly what the service would, before anything starts.
            backbone = BenchBackbones.check(BenchAgentConfigs.toDomain(llm.toWire()),
                    () -> BackboneCatalog.load(llm.backbonesPath(home)));
        } catch (BenchException e) {
            err.println("healbench: " + e.getMessage());
            return ExitStatus.USAGE;
        }
        // A replay needs no key: it never reaches the provider. Remote workers read keys from their own environment.
        boolean replaying = llm.cassetteMode() == CassetteMode.CASSETTE_REPLAY;
        if (args.standalone() && !replaying && backbone.apiKeyRequired() && !AgentsCommand.present(backbone.apiKeyEnv())) {
            err.println("healbench: backbone " + backbone.name() + " needs its API key in $" + backbone.apiKeyEnv()
                    + ", which is not set");
            return ExitStatus.NOT_READY;
        }
        return ExitStatus.COMPLETED;
    }

}
