package io.healbench.agent.service.rules;

import io.healbench.agent.service.CrashObservation;
import io.healbench.agent.service.ObservedFrame;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One call of a function as far as the crash context can tell: the function (file and name), the callers' lines,
 * and its parameters' current values; plus where it crashed and its locals. Two crashes with the same key are taken
 * to be in the same call (a call repeated with equal arguments from the same place behaves the same, so conflating
 * them is harmless here).
 */
record Invocation(String key, String site, Map<String, String> state) {

    /** The call that crashed; empty at module level or when the crashing frame is not in the traceback. */
    static Optional<Invocation> of(CrashObservation crash) {
        String file = crash.statement().file();
        if (!crash.inFunction() || crash.functionSource().isBlank() || file.isEmpty()) {
            return Optional.empty();
        }
        List<ObservedFrame> frames = crash.traceback();
        int at = -1;
        for (int i = 0; i < frames.size(); i++) {
            if (frames.get(i).file().equals(file) && frames.get(i).line() == crash.statement().line()) {
                at = i;
            }
        }
        if (at < 0) {
            return Optional.empty();
        }
        StringBuilder key = new StringBuilder(file).append(':').append(frames.get(at).function());
        for (int i = 0; i < at; i++) {
            key.append(" <- ").append(frames.get(i).file()).append(':').append(frames.get(i).line());
        }
        for (String parameter : FunctionSource.parameters(crash.functionSource())) {
            key.append(" | ").append(parameter).append('=')
                    .append(crash.local(parameter).map(local -> local.type() + ":" + local.repr()).orElse("?"));
        }
        Map<String, String> state = new TreeMap<>();
        crash.locals().forEach(local -> state.put(local.name(), local.type() + ":" + local.repr()));
        return Optional.of(new Invocation(key.toString(), file + ":" + crash.statement().line(), state));
    }
}
