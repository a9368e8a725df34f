package io.healbench.sandbox.service.process;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** What to run for a session: the interpreter's argument vector, its extra environment and working directory. */
public record LaunchRequest(List<String> command, Map<String, String> environment, Path workingDirectory) {}
