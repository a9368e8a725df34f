package io.healbench.agent.grpc;

import io.healbench.proto.outcome.v1.OutcomeProtos;
import com.google.rpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.healbench.agent.service.CrashObservation;
import io.healbench.agent.service.ObservedLocal;
import io.healbench.agent.service.SessionTools;
import io.healbench.agent.service.external.ExternalBudget;
import io.healbench.agent.service.external.ExternalClaim;
import io.healbench.agent.service.external.ExternalFailure;
import io.healbench.agent.service.external.ExternalReply;
import io.healbench.agent.service.external.ExternalStep;
import io.healbench.agent.service.llm.ActionCatalog;
import io.healbench.agent.service.llm.WorkspacePaths;
import io.healbench.proto.agent.v1.Budget;
import io.healbench.proto.agent.v1.ClaimResponse;
import io.healbench.proto.agent.v1.CodeMatch;
import io.healbench.proto.agent.v1.ConnectRequest;
import io.healbench.proto.agent.v1.ConnectResponse;
import io.healbench.proto.agent.v1.Crash;
import io.healbench.proto.agent.v1.FileEntry;
import io.healbench.proto.agent.v1.Finished;
import io.healbench.proto.agent.v1.HealResponse;
import io.healbench.proto.agent.v1.ListFilesResponse;
import io.healbench.proto.agent.v1.Local;
import io.healbench.proto.agent.v1.ProbeResponse;
import io.healbench.proto.agent.v1.ReadFileResponse;
import io.healbench.proto.agent.v1.ReraiseResponse;
import io.healbench.proto.agent.v1.Resume;
import io.healbench.proto.agent.v1.SearchCodeResponse;
import io.healbench.proto.agent.v1.Step;
import io.healbench.proto.rpc.RichStatus;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The gateway's typed requests as the action surface's tools and arguments (checked there, once, as for every agent),
 * and the domain's answers as typed responses. Paths inside the session's workspace are shown relative to its source
 * root, as the internal agents see them.
 */
final class AgentGatewayMapper {

    private AgentGatewayMapper() {
    }

    /** The tool a request names (null for a claim, a usage report, or none). */
    static String tool(ConnectRequest request) {
        return switch (request.getActionCase()) {
            case GET_CRASH -> ActionCatalog.GET_CRASH;
            case PROBE -> ActionCatalog.PROBE;
            case HEAL -> ActionCatalog.HEAL;
            case RERAISE -> ActionCatalog.RERAISE;
            case READ_FILE -> ActionCatalog.READ_FILE;
            case LIST_FILES -> ActionCatalog.LIST_FILES;
            case SEARCH_CODE -> ActionCatalog.SEARCH_CODE;
            case CLAIM, REPORT_USAGE, ACTION_NOT_SET -> null;
        };
    }

    /** A request's arguments; a field left at its default is an argument not given (so a required one is missing). */
    static Map<String, Object> arguments(ConnectRequest request) {
        Map<String, Object> args = new LinkedHashMap<>();
        switch (request.getActionCase()) {
            case PROBE -> {
                text(args, "code", request.getProbe().getCode());
                if (request.getProbe().getTimeoutSeconds() != 0) {
                    args.put("timeout_s", request.getProbe().getTimeoutSeconds());
                }
            }
            case HEAL -> {
                text(args, "code", request.getHeal().getCode());
                Resume resume = request.getHeal().getResume();
                if (resume != Resume.RESUME_UNSPECIFIED) {
                    // An unknown enum number reaches the check as itself and is refused there.
                    args.put("resume", resume == Resume.UNRECOGNIZED ? "unrecognized"
                            : resume.name().substring("RESUME_".length()).toLowerCase(java.util.Locale.ROOT));
                }
            }
            case RERAISE -> text(args, "reason", request.getReraise().getReason());
            case READ_FILE -> {
                text(args, "path", request.getReadFile().getPath());
                number(args, "start", request.getReadFile().getStart());
                number(args, "end", request.getReadFile().getEnd());
            }
            case LIST_FILES -> {
                text(args, "path", request.getListFiles().getPath());
                text(args, "glob", request.getListFiles().getGlob());
            }
            case SEARCH_CODE -> {
                text(args, "pattern", request.getSearchCode().getPattern());
                text(args, "glob", request.getSearchCode().getGlob());
            }
            default -> {
            }
        }
        return args;
    }

    private static void text(Map<String, Object> args, String name, String value) {
        if (!value.isEmpty()) {
            args.put(name, value);
        }
    }

    private static void number(Map<String, Object> args, String name, int value) {
        if (value != 0) {
            args.put(name, value);
        }
    }

    static ConnectResponse.Builder claim(ConnectResponse.Builder out, ExternalClaim claim) {
        return out.setClaim(ClaimResponse.newBuilder().setAttempt(claim.attempt()).setInstanceId(claim.instanceId())
                .setRepeat(claim.repeat()).setLeaseSeconds(claim.leaseSeconds()).setStep(step(claim.step())))
                .setBudget(budget(claim.budget()));
    }

    /** The answer of one tool, typed. */
    static ConnectResponse.Builder reply(ConnectResponse.Builder out, String tool, ExternalReply reply) {
        out.setBudget(budget(reply.budget()));
        Object value = reply.value();
        switch (tool) {
            case ActionCatalog.GET_CRASH -> out.setCrash(crash((CrashObservation) value));
            case ActionCatalog.PROBE -> {
                SessionTools.ProbeReply probe = (SessionTools.ProbeReply) value;
                out.setProbe(ProbeResponse.newBuilder().setOk(probe.ok()).setOutput(rel(probe.output()))
                        .setValueRepr(rel(probe.valueRepr())).setError(rel(probe.error())));
            }
            case ActionCatalog.HEAL -> {
                ExternalReply.Healed healed = (ExternalReply.Healed) value;
                out.setHeal(HealResponse.newBuilder().addAllChanged(healed.changed()).setStep(step(healed.step())));
            }
            case ActionCatalog.RERAISE -> out.setReraise(ReraiseResponse.newBuilder().setStep(step((ExternalStep) value)));
            case ActionCatalog.READ_FILE -> {
                SessionTools.FileView file = (SessionTools.FileView) value;
                out.setReadFile(ReadFileResponse.newBuilder().setPath(rel(file.path())).setContent(file.content())
                        .setStartLine(file.startLine()).setEndLine(file.endLine()).setTotalLines(file.totalLines())
                        .setTruncated(file.truncated()));
            }
            case ActionCatalog.LIST_FILES -> {
                SessionTools.FileListing listing = (SessionTools.FileListing) value;
                ListFilesResponse.Builder files = ListFilesResponse.newBuilder().setMore(listing.more());
                listing.entries().forEach(e -> files.addEntries(FileEntry.newBuilder().setPath(rel(e.path()))
                        .setSizeBytes(e.size()).setDirectory(e.directory())));
                out.setListFiles(files);
            }
            case ActionCatalog.SEARCH_CODE -> {
                SessionTools.CodeMatches found = (SessionTools.CodeMatches) value;
                SearchCodeResponse.Builder matches = SearchCodeResponse.newBuilder().setMore(found.more());
                found.matches().forEach(m -> matches.addMatches(CodeMatch.newBuilder().setPath(rel(m.path()))
                        .setLine(m.line()).setText(m.text())));
                out.setSearchCode(matches);
            }
            default -> throw new IllegalArgumentException("no tool named " + tool);
        }
        return out;
    }

    static Step step(ExternalStep step) {
        if (step.isFinished()) {
            ExternalStep.Finished end = step.finished();
            return Step.newBuilder().setFinished(Finished.newBuilder().setProceeded(end.proceeded())
                    .setExitCause(OutcomeProtos.exitCause(end.exitCause())).setHealPoints(end.healPoints())).build();
        }
        return Step.newBuilder().setCrash(crash(step.crash())).build();
    }

    static Crash crash(CrashObservation crash) {
        Crash.Builder out = Crash.newBuilder().setHealPoint(crash.healPoint()).setExceptionType(crash.exceptionType())
                .setExceptionMessage(rel(crash.exceptionMessage())).setFile(rel(crash.statement().file()))
                .setLine(crash.statement().line()).setStatement(crash.statement().source())
                .setBrief(ExternalStep.crashed(crash).render());
        for (ObservedLocal local : crash.locals()) {
            out.addLocals(Local.newBuilder().setName(local.name()).setType(local.type()).setRepr(rel(local.repr())));
        }
        return out.build();
    }

    static Budget budget(ExternalBudget budget) {
        return Budget.newBuilder().setWallMsLeft(budget.wallMsLeft()).setActionsLeft(budget.actionsLeft())
                .setProbesLeft(budget.probesLeft()).setHealsLeft(budget.healsLeft()).build();
    }

    /** A failure as the API's {@code google.rpc.Status}: its code, message and documented reason. */
    static Status status(ExternalFailure failure) {
        return RichStatus.status(code(failure.kind()), ExternalFailure.DOMAIN, failure.reason(), String.valueOf(failure.getMessage()));
    }

    static StatusRuntimeException fatal(ExternalFailure failure) {
        return StatusProto.toStatusRuntimeException(status(failure));
    }

    private static io.grpc.Status.Code code(ExternalFailure.Kind kind) {
        return io.grpc.Status.Code.valueOf(kind.name());
    }

    private static String rel(String text) {
        return text == null ? "" : WorkspacePaths.relative(text);
    }
}
