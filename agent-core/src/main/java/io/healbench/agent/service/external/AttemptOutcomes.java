package io.healbench.agent.service.external;

import io.healbench.agent.service.AttemptResult;
import io.healbench.agent.service.AttemptSpec;
import java.util.concurrent.CompletionStage;

/** Where an ended attempt's result goes (the attempt-events channel, as for the workers' attempts). */
public interface AttemptOutcomes {

    /** Completes once the result is durably handed over (the broker's confirm). */
    CompletionStage<Void> completed(AttemptSpec spec, AttemptResult result);
}
