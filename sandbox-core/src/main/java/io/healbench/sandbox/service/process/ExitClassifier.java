package io.healbench.sandbox.service.process;

import io.healbench.common.outcome.ExitCause;
import io.healbench.sandbox.config.SandboxIsolationConfig.Limits;
import java.util.Map;

/**
 * Says why a session process ended when the runtime did not report it: a resource limit (recognised by
 * the signal the kernel sends for it, or by a MemoryError at the end of the output), another signal, or a
 * plain exit. Timeouts and kills on request are known to the supervisor, not read from the exit status.
 */
final class ExitClassifier {

    private static final int SIGXCPU = 24;
    private static final int SIGXFSZ = 25;
    private static final Map<Integer, String> SIGNAL_NAMES = Map.ofEntries(
            Map.entry(1, "SIGHUP"), Map.entry(2, "SIGINT"), Map.entry(3, "SIGQUIT"), Map.entry(4, "SIGILL"),
            Map.entry(6, "SIGABRT"), Map.entry(7, "SIGBUS"), Map.entry(8, "SIGFPE"), Map.entry(9, "SIGKILL"),
            Map.entry(11, "SIGSEGV"), Map.entry(13, "SIGPIPE"), Map.entry(14, "SIGALRM"), Map.entry(15, "SIGTERM"),
            Map.entry(SIGXCPU, "SIGXCPU"), Map.entry(SIGXFSZ, "SIGXFSZ"), Map.entry(31, "SIGSYS"));

    /** The limits the process ran under; null when it ran without isolation. */
    private final Limits limits;

    ExitClassifier(Limits limits) {
        this.limits = limits;
    }

    /**
     * @param exitValue the exit status as Java reports it (and bwrap passes on): 128 + N for signal N
     * @param outputTail the last few KiB of the process's stdout and stderr
     * @param oomKills   processes of the session the kernel killed at its memory cap (its cgroup's count)
     * @param sessionMemory that cap in bytes, 0 where there is none
     */
    ProcessExit classify(int exitValue, String outputTail, long oomKills, long sessionMemory) {
        if (oomKills > 0 && exitValue != 0) {
            return new ProcessExit(ExitCause.LIMIT, "memory: the session's memory cap of " + sessionMemory + " bytes was reached; the kernel"
                    + " killed " + oomKills + " of its processes; exited with status " + exitValue + " without reporting an outcome");
        }
        if (exitValue > 128 && exitValue < 128 + 65) {
            int signal = exitValue - 128;
            String name = signalName(signal);
            if (signal == SIGXCPU) {
                return new ProcessExit(ExitCause.LIMIT, "cpu: " + name + " (signal " + signal + "), CPU time limit"
                        + (limits == null ? "" : " of " + limits.cpuSeconds() + " s") + " reached");
            }
            if (signal == SIGXFSZ) {
                return new ProcessExit(ExitCause.LIMIT, "file-size: " + name + " (signal " + signal + "), file size limit"
                        + (limits == null ? "" : " of " + limits.fileSizeBytes() + " bytes") + " exceeded");
            }
            return new ProcessExit(ExitCause.SIGNAL, name + " (signal " + signal + "): terminated without reporting an outcome");
        }
        if (exitValue != 0 && outputTail.contains("MemoryError")) {
            return new ProcessExit(ExitCause.LIMIT, "memory: MemoryError, an allocation failed"
                    + (limits == null ? "" : " under the address-space limit of " + limits.addressSpaceBytes() + " bytes")
                    + "; exited with status " + exitValue + " without reporting an outcome");
        }
        return new ProcessExit(ExitCause.EXITED, "exited with status " + exitValue + " without reporting an outcome");
    }

    static String signalName(int signal) {
        return SIGNAL_NAMES.getOrDefault(signal, "signal " + signal);
    }
}
