package io.healbench.sandbox.grpc;

import com.google.protobuf.Timestamp;
import io.healbench.common.heal.Resume;
import io.healbench.proto.guard.v1.GuardProtos;
import io.healbench.proto.outcome.v1.OutcomeProtos;
import io.healbench.proto.outcome.v1.ResumeMode;
import io.healbench.proto.outcome.v1.ResumeModes;
import io.healbench.proto.sandbox.v1.CodeMatch;
import io.healbench.proto.sandbox.v1.CrashContext;
import io.healbench.proto.sandbox.v1.CrashStatement;
import io.healbench.proto.sandbox.v1.FileEntry;
import io.healbench.proto.sandbox.v1.Frame;
import io.healbench.proto.sandbox.v1.HealResult;
import io.healbench.proto.sandbox.v1.ListFilesResponse;
import io.healbench.proto.sandbox.v1.LocalVariable;
import io.healbench.proto.sandbox.v1.Outcome;
import io.healbench.proto.sandbox.v1.ProbeResult;
import io.healbench.proto.sandbox.v1.ReadFileResponse;
import io.healbench.proto.sandbox.v1.ReferenceRun;
import io.healbench.proto.sandbox.v1.ResourceUse;
import io.healbench.proto.sandbox.v1.SearchCodeResponse;
import io.healbench.proto.sandbox.v1.Session;
import io.healbench.proto.sandbox.v1.SessionEvent;
import io.healbench.proto.sandbox.v1.Variant;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.model.HealOutcome;
import io.healbench.sandbox.service.model.ProbeOutcome;
import io.healbench.sandbox.service.model.SessionView;
import io.healbench.sandbox.service.workspace.CodeSearchResult;
import io.healbench.sandbox.service.workspace.FileExcerpt;
import io.healbench.sandbox.service.workspace.FileListing;
import java.time.Instant;

/** Translates between the sandbox's domain records and the {@code healbench.sandbox.v1} messages. */
final class SandboxProtoMapper {

    private SandboxProtoMapper() {}

    static io.healbench.sandbox.service.model.Variant variant(Variant variant) {
        return switch (variant) {
            case BUGGY -> io.healbench.sandbox.service.model.Variant.BUGGY;
            case REFERENCE -> io.healbench.sandbox.service.model.Variant.REFERENCE;
            default -> null;
        };
    }

    /** A heal request's resume (ResumeModes.resume); a value this build does not know is RESUME_MODE_INVALID. */
    static Resume resume(ResumeMode mode) {
        try {
            return ResumeModes.resume(mode);
        } catch (IllegalArgumentException e) {
            throw new SandboxException(SandboxException.Kind.INVALID_ARGUMENT, "RESUME_MODE_INVALID", e.getMessage());
        }
    }

    static Session session(SessionView view) {
        return Session.newBuilder()
                .setName(view.name())
                .setInstanceId(view.instanceId())
                .setVariant(view.variant() == io.healbench.sandbox.service.model.Variant.BUGGY ? Variant.BUGGY : Variant.REFERENCE)
                .setState(Session.State.valueOf(view.state().name()))
                .setHealPoint(view.healPoint())
                .setCreateTime(timestamp(view.createTime()))
                .putAllLabels(view.labels())
                .build();
    }

    static SessionEvent event(io.healbench.sandbox.service.model.SessionEvent event) {
        SessionEvent.Builder out = SessionEvent.newBuilder()
                .setSession(event.session())
                .setSequence(event.sequence())
                .setTime(timestamp(event.time()));
        io.healbench.sandbox.service.model.SessionEvent.Payload payload = event.payload();
        if (payload instanceof io.healbench.sandbox.service.model.SessionEvent.Crashed crashed) {
            out.setCrashed(crash(crashed.context()));
        } else if (payload instanceof io.healbench.sandbox.service.model.SessionEvent.ProbeAnswered probe) {
            out.setProbeResult(probe(probe.result()));
        } else if (payload instanceof io.healbench.sandbox.service.model.SessionEvent.HealAnswered heal) {
            out.setHealResult(heal(heal.result()));
        } else if (payload instanceof io.healbench.sandbox.service.model.SessionEvent.GuardDecided guard) {
            out.setGuardEvent(GuardProtos.decision(guard.decision()));
        } else if (payload instanceof io.healbench.sandbox.service.model.SessionEvent.Output output) {
            out.setOutput(output.text());
        } else if (payload instanceof io.healbench.sandbox.service.model.SessionEvent.Finished finished) {
            out.setFinished(outcome(finished.outcome()));
        }
        return out.build();
    }

    static CrashContext crash(io.healbench.sandbox.service.model.CrashContext c) {
        CrashContext.Builder out = CrashContext.newBuilder()
                .setHealPoint(c.healPoint())
                .setExceptionType(c.exceptionType())
                .setExceptionMessage(c.exceptionMessage())
                .setFunctionSource(c.functionSource())
                .addAllCallerSources(c.callerSources().stream().map(SandboxProtoMapper::text).toList())
                .setInFunction(c.inFunction());
        c.traceback().forEach(f -> out.addTraceback(Frame.newBuilder()
                .setFile(text(f.file())).setLine(f.line()).setFunction(text(f.function()))
                .setSourceLine(text(f.sourceLine())).setProject(f.project())));
        c.locals().forEach(v -> out.addLocals(LocalVariable.newBuilder()
                .setName(text(v.name())).setType(text(v.type())).setRepr(text(v.repr())).setTruncated(v.truncated())));
        if (c.statement() != null) {
            io.healbench.sandbox.service.model.CrashContext.Statement s = c.statement();
            out.setStatement(CrashStatement.newBuilder()
                    .setSource(text(s.source())).setFile(text(s.file())).setLine(s.line()).setEndLine(s.endLine())
                    .setCol(s.col()).setEndCol(s.endCol()).setKind(text(s.kind()))
                    .addAllTargets(s.targets() == null ? java.util.List.of() : s.targets()));
        }
        return out.build();
    }

    static ProbeResult probe(ProbeOutcome p) {
        return ProbeResult.newBuilder().setOk(p.ok()).setOutput(text(p.output())).setValueRepr(text(p.value())).setError(text(p.error())).build();
    }

    static HealResult heal(HealOutcome h) {
        HealResult.Builder out = HealResult.newBuilder()
                .setApplied(h.applied())
                .setTraceback(text(h.traceback()))
                .addAllChanged(h.changed())
                .setResumed(ResumeModes.of(h.resume()));
        if (h.error() != null) {
            out.setError(SandboxErrors.status(h.error()));
        }
        h.guardDecisions().forEach(d -> out.addGuardDecisions(GuardProtos.decision(d)));
        return out.build();
    }

    static Outcome outcome(io.healbench.sandbox.service.model.Outcome o) {
        Outcome.Builder out = Outcome.newBuilder()
                .setSummary(OutcomeProtos.summary(o.proceeded(), o.passed(), o.healPoints(), o.healsApplied(), o.healsRejected(),
                        o.exitCause(), o.wallTimeMs()))
                .setExitCode(o.exitCode()).putAllTrace(o.trace()).setDetail(text(o.detail())).setReported(o.reported());

        if (o.reference() != null) {
            out.setTraceSimilarity(o.reference().traceSimilarity())
                    .setTraceOverlap(o.reference().traceOverlap())
                    .setReferencePassed(o.reference().referencePassed());
        }
        if (o.resources() != null) {
            io.healbench.sandbox.service.model.ResourceUse r = o.resources();
            out.setResources(ResourceUse.newBuilder().setMemoryAccounting(r.memoryAccounting())
                    .setMemoryCapBytes(r.memoryCapBytes()).setPeakMemoryBytes(r.peakMemoryBytes()).setOomKills(r.oomKills())
                    .setWorkspaceCapBytes(r.workspaceCapBytes()).setWorkspaceBytes(r.workspaceBytes()));
        }
        return out.build();
    }

    static ReadFileResponse file(FileExcerpt excerpt) {
        return ReadFileResponse.newBuilder().setPath(excerpt.path()).setContent(excerpt.content()).setTotalLines(excerpt.totalLines())
                .setStartLine(excerpt.startLine()).setEndLine(excerpt.endLine()).setTruncated(excerpt.truncated()).build();
    }

    static ListFilesResponse listing(FileListing listing) {
        ListFilesResponse.Builder out = ListFilesResponse.newBuilder().setNextPageToken(listing.nextPageToken());
        listing.entries().forEach(e -> out.addFiles(FileEntry.newBuilder().setPath(e.path()).setSize(e.size()).setIsDir(e.directory())));
        return out.build();
    }

    static SearchCodeResponse search(CodeSearchResult result) {
        SearchCodeResponse.Builder out = SearchCodeResponse.newBuilder()
                .setNextPageToken(result.nextPageToken()).setFilesSkipped(result.filesSkipped());
        result.matches().forEach(m -> out.addMatches(CodeMatch.newBuilder().setPath(m.path()).setLine(m.line()).setText(m.text())));
        return out.build();
    }

    static ReferenceRun reference(io.healbench.sandbox.service.reference.ReferenceRun run) {
        return ReferenceRun.newBuilder().setName("instances/" + run.instanceId() + "/referenceRun").setInstanceId(run.instanceId()).setDigest(text(run.digest())).setPython(text(run.python()))
                .setOutcome(outcome(run.outcome())).setCached(run.cached()).build();
    }

    private static Timestamp timestamp(Instant instant) {
        return Timestamp.newBuilder().setSeconds(instant.getEpochSecond()).setNanos(instant.getNano()).build();
    }

    private static String text(String s) {
        return s == null ? "" : s;
    }

}
