package io.healbench.sandbox.service.process;

import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxException.Kind;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Builds the full command line of a session process and starts it. This is the one place that decides how a
 * session is wrapped: today {@code setsid} (own process group); isolation (bwrap, prlimit) is to be added here.
 */
@ApplicationScoped
public class ProcessLauncher {

    /** The environment every session starts from; nothing of the service's own environment leaks in. */
    private static final Map<String, String> BASE_ENVIRONMENT = Map.of(
            "PATH", "/usr/local/bin:/usr/bin:/bin",
            "LANG", "C.UTF-8",
            "LC_ALL", "C.UTF-8");

    public List<String> commandLine(LaunchRequest request) {
        List<String> command = new ArrayList<>();
        command.add("setsid");
        command.addAll(request.command());
        return command;
    }

    public GroupProcess launch(LaunchRequest request) {
        ProcessBuilder builder = new ProcessBuilder(commandLine(request)).directory(request.workingDirectory().toFile());
        Map<String, String> env = builder.environment();
        env.clear();
        env.putAll(BASE_ENVIRONMENT);
        env.put("HOME", request.workingDirectory().toString());
        env.putAll(request.environment());
        try {
            Process process = builder.start();
            process.getOutputStream().close();
            return new GroupProcess(process);
        } catch (IOException e) {
            throw new SandboxException(Kind.INTERNAL, "LAUNCH_FAILED", "cannot start " + builder.command() + ": " + e.getMessage(), e);
        }
    }
}
