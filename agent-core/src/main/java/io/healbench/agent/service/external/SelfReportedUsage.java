package io.healbench.agent.service.external;

/** Model usage an external agent reports about itself, since its last report: kept and shown flagged, never verified. */
public record SelfReportedUsage(int llmCalls, long inputTokens, long outputTokens, double costUsd, String model) {

    static final int MAX_MODEL_CHARS = 200;

    public SelfReportedUsage {
        model = model == null ? "" : model;
        if (llmCalls < 0 || inputTokens < 0 || outputTokens < 0 || costUsd < 0 || !Double.isFinite(costUsd)) {
            throw ExternalFailure.badArgument("reported usage must be finite and not negative");
        }
        if (model.length() > MAX_MODEL_CHARS) {
            throw ExternalFailure.badArgument("the model's name is longer than " + MAX_MODEL_CHARS + " characters");
        }
    }
}
