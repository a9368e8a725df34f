package io.healbench.sandbox.service.process;

import io.healbench.sandbox.config.SandboxIsolationConfig.Limits;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The argument vector that runs a command isolated: bubblewrap for the namespaces and the filesystem view,
 * prlimit for the resource limits, setpriv to become the session's unprivileged user with no capabilities.
 *
 * <pre>
 * bwrap --die-with-parent --new-session --unshare-net --unshare-pid --unshare-ipc --unshare-uts
 *       --ro-bind / / --dev /dev --proc /proc
 *       --perms 1777 --size TMP --tmpfs /tmp          private /tmp, in memory, bounded
 *       --perms 0755 --tmpfs HOME                     the service user's home (credentials) hidden
 *       [--perms 0755 --dir ANCESTOR]... --ro-bind P P for what the process must read under a hidden dir
 *       [--perms 0755 --dir ANCESTOR]... --bind WS WS  the workspace, the only writable host directory
 *       --chdir WS
 *   -- prlimit --cpu=S:S+5 --as=B --nofile=N --nproc=P --fsize=F --core=0
 *   -- setpriv --reuid=U --regid=U --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs
 *   -- COMMAND...
 * </pre>
 *
 * Order matters: bwrap applies its mount operations left to right, so the tmpfs mounts come before what
 * is bound back on top of them. The limits are set while still root, then setpriv drops to the user;
 * rlimits survive both the uid change and exec.
 */
final class BwrapCommandLine {

    /** Grace between SIGXCPU (soft CPU limit, a detectable cause) and the kernel's SIGKILL (hard limit). */
    static final long CPU_GRACE_SECONDS = 5;

    private BwrapCommandLine() {}

    /**
     * @param hidden directories replaced by an empty tmpfs besides {@code /tmp} (the service user's home)
     * @param readable paths the process must read that may lie under {@code /tmp} or a hidden directory
     */
    static List<String> build(String bwrap, Path workspace, List<Path> hidden, List<Path> readable, Limits limits, long uid,
                              List<String> command) {
        List<Path> masked = new ArrayList<>();
        masked.add(Path.of("/tmp"));
        masked.addAll(hidden);

        List<String> argv = new ArrayList<>(List.of(bwrap,
                "--die-with-parent", "--new-session",
                "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                "--perms", "1777", "--size", Long.toString(limits.tmpBytes()), "--tmpfs", "/tmp"));
        for (Path dir : hidden) {
            argv.addAll(List.of("--perms", "0755", "--tmpfs", dir.toString()));
        }
        for (Path path : readable) {
            if (!path.startsWith(workspace) && under(path, masked)) {
                exposeParents(argv, path, masked);
                argv.addAll(List.of("--ro-bind", path.toString(), path.toString()));
            }
        }
        exposeParents(argv, workspace, masked);
        argv.addAll(List.of("--bind", workspace.toString(), workspace.toString(), "--chdir", workspace.toString(), "--"));

        argv.addAll(List.of("prlimit",
                "--cpu=" + limits.cpuSeconds() + ":" + (limits.cpuSeconds() + CPU_GRACE_SECONDS),
                "--as=" + limits.addressSpaceBytes(),
                "--nofile=" + limits.openFiles(),
                "--nproc=" + limits.processes(),
                "--fsize=" + limits.fileSizeBytes(),
                "--core=0",
                "--"));
        argv.addAll(List.of("setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"));
        argv.addAll(command);
        return argv;
    }

    private static boolean under(Path path, List<Path> masked) {
        return masked.stream().anyMatch(path::startsWith);
    }

    /**
     * bwrap creates missing mount points with mode 0700, which the unprivileged user could not traverse:
     * create the directories between a hidden directory and the bound path as 0755 first.
     */
    private static void exposeParents(List<String> argv, Path path, List<Path> masked) {
        Path root = masked.stream().filter(path::startsWith).findFirst().orElse(null);
        if (root == null) {
            return;
        }
        for (Path dir = root.resolve(root.relativize(path).getName(0)); !dir.equals(path);
             dir = dir.resolve(path.getName(dir.getNameCount()))) {
            argv.addAll(List.of("--perms", "0755", "--dir", dir.toString()));
        }
    }
}
