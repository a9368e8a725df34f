package io.healbench.agent.grpc;

import io.healbench.agent.service.AgentSandbox.HealReply;
import io.healbench.agent.service.AgentSessionOutcome;
import io.healbench.agent.service.CrashObservation;
import io.healbench.agent.service.ObservedFrame;
import io.healbench.agent.service.ObservedLocal;
import io.healbench.agent.service.ObservedStatement;
import io.healbench.proto.outcome.v1.OutcomeProtos;
import io.healbench.proto.sandbox.v1.CrashContext;
import io.healbench.proto.sandbox.v1.CrashStatement;
import io.healbench.proto.sandbox.v1.HealResult;
import io.healbench.proto.sandbox.v1.Outcome;

/** Maps the sandbox protos to the agent's domain and back. */
final class AgentSandboxProtoMapper {

    private AgentSandboxProtoMapper() {
    }

    static CrashObservation crash(CrashContext context) {
        CrashStatement statement = context.getStatement();
        return new CrashObservation(
                context.getHealPoint(),
                context.getExceptionType(),
                context.getExceptionMessage(),
                new ObservedStatement(statement.getSource(), statement.getKind(), statement.getTargetsList(),
                        statement.getLine(), statement.getFile()),
                context.getLocalsList().stream()
                        .map(local -> new ObservedLocal(local.getName(), local.getType(), local.getRepr()))
                        .toList(),
                context.getInFunction(),
                context.getFunctionSource(),
                context.getTracebackList().stream()
                        .map(frame -> new ObservedFrame(frame.getFile(), frame.getLine(), frame.getFunction(),
                                frame.getSourceLine()))
                        .toList(),
                context.getCallerSourcesList());
    }

    static AgentSessionOutcome outcome(Outcome outcome) {
        return new AgentSessionOutcome(outcome.getSummary().getProceeded(), outcome.getSummary().getPassed(),
                OutcomeProtos.exitCause(outcome.getSummary().getExitCause()), outcome.getExitCode(), outcome.getSummary().getWallTimeMs(), outcome.getDetail(), outcome.getTraceSimilarity(),
                outcome.getReported());
    }

    /** The refusal reason the agent sees: the error's reason and message, then the heal's traceback. */
    static HealReply healReply(HealResult result) {
        StringBuilder reason = new StringBuilder();
        if (result.hasError()) {
            String code = AgentSandboxCallFailures.errorInfoReason(result.getError());
            reason.append(code.isEmpty() ? "" : code + ": ").append(result.getError().getMessage());
        }
        if (!result.getTraceback().isEmpty()) {
            reason.append(reason.isEmpty() ? "" : "\n").append(result.getTraceback());
        }
        return new HealReply(result.getApplied(), reason.toString(), result.getChangedList());
    }
}
