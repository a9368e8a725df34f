package io.healbench.sandbox.service.process;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What to run for a session: the interpreter's argument vector, its extra environment, and its working
 * directory, which is the workspace: the one host directory an isolated process may write. {@code readable}
 * lists what it must read besides the system (interpreter, pristine subject, runtime), so isolation can
 * expose them even where it hides the surrounding directory. {@code covered} maps files inside those paths that
 * the process must not read to what it sees there instead (host paths both): an injected instance's pristine files
 * are its answer key.
 */
public record LaunchRequest(List<String> command, Map<String, String> environment, Path workingDirectory, List<Path> readable,
                            Map<Path, Path> covered) {}
