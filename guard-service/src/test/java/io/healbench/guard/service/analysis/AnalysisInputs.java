package io.healbench.guard.service.analysis;

/** Analysis inputs for tests outside this package (the gRPC test). */
public final class AnalysisInputs {

    private AnalysisInputs() {}

    /** {@code app.py} crashing at its {@code # CRASH} line in {@code work} (Δk: name:name), plus {@code pad.py}. */
    public static AnalysisInput direct(String app, String pad) {
        return AnalysisCase.crashIn("app.py", "work", app).file("pad.py", pad).delta("both name:name").input();
    }
}
