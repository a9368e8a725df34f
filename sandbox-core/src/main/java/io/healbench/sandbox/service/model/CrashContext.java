package io.healbench.sandbox.service.model;

import java.util.List;

/** What the runtime reports when it pauses at a crash (docs/control-protocol.md, "Crash context"). */
public record CrashContext(
        int healPoint,
        String exceptionType,
        String exceptionMessage,
        List<Frame> traceback,
        List<LocalVariable> locals,
        Statement statement,
        String functionSource,
        List<String> callerSources,
        boolean inFunction) {

    /** One traceback entry, innermost last. */
    public record Frame(String file, int line, String function, String sourceLine, boolean project) {}

    /** One local of the crashing frame, its repr already capped by the runtime. */
    public record LocalVariable(String name, String type, String repr, boolean truncated) {}

    /** The crashing statement with its position. */
    public record Statement(String source, String file, int line, int endLine, int col, int endCol, String kind, List<String> targets) {}
}
