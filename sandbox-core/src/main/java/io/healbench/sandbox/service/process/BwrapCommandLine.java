package io.healbench.sandbox.service.process;

import io.healbench.sandbox.config.SandboxIsolationConfig.Limits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The argument vector that runs a command isolated: bubblewrap for the namespaces and the filesystem view,
 * prlimit for the resource limits, setpriv to become the session's unprivileged user with no capabilities.
 *
 * <pre>
 * sh -c 'PRELUDE' sh [CGROUP.PROCS]... -- FILTER        join the session's cgroups, open the seccomp program on fd 3
 * bwrap --die-with-parent --new-session --unshare-net --unshare-pid --unshare-ipc --unshare-uts --seccomp 3
 *       --ro-bind /usr /usr [--symlink usr/bin /bin]...   the system's programs and libraries, nothing else of /
 *       [--ro-bind /etc/F /etc/F]...                       the few files of /etc a program reads (loader, users, zones)
 *       --dev /dev --proc /proc
 *       --perms 1777 --size TMP --tmpfs /dev/shm           private shared memory (POSIX semaphores), bounded
 *       --perms 1777 --size TMP --tmpfs /tmp               private /tmp, in memory, bounded
 *       [--perms 0755 --dir ANCESTOR]... --ro-bind P P     what the run reads: interpreter, subject, dependencies, runtime
 *       [--perms 0755 --dir ANCESTOR]... --bind WS WS      the workspace, the only writable host directory
 *       [--ro-bind P P]...                                 but for what the run only reads in it (its sources)
 *       --chdir WS
 *   -- prlimit --cpu=S:S+5 --as=B --nofile=N --nproc=P --fsize=F --core=0
 *   -- setpriv --reuid=U --regid=U --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs
 *   -- COMMAND...
 * </pre>
 *
 * The view is built from what the run needs, never from {@code /} minus a few: whatever is not bound does not exist
 * inside, so the host's sockets ({@code /run}, {@code /var/run}, {@code /var/lib}), the dataset, the caches of other
 * subjects, the repository, the service user's home and other sessions' workspaces are not there to reach
 * (docs/sandbox-isolation.md, "What a session sees"). Order matters: bwrap applies its mount operations left to
 * right, so {@code /tmp} is mounted before what is bound on top of it. The limits are set while still root, then
 * setpriv drops to the user; rlimits survive both the uid change and exec. The prelude shell joins the session's
 * cgroups ({@link SessionCgroups}) before anything else runs, so bwrap and every process after it are inside them.
 */
final class BwrapCommandLine {

    /** Grace between SIGXCPU (soft CPU limit, a detectable cause) and the kernel's SIGKILL (hard limit). */
    static final long CPU_GRACE_SECONDS = 5;

    /** The system's programs and libraries; on a merged-/usr system all but {@code /usr} are symlinks into it. */
    static final List<Path> SYSTEM_DIRS = List.of(Path.of("/usr"), Path.of("/bin"), Path.of("/sbin"), Path.of("/lib"),
            Path.of("/lib32"), Path.of("/lib64"), Path.of("/libx32"));

    /**
     * What programs read in {@code /etc}: the dynamic loader's cache, user and group names ({@code getpass},
     * {@code pwd}), time zones, host and service names, MIME types, certificates, Debian's alternatives (symlink
     * targets of {@code /usr/bin} entries) and Debian Python's {@code sitecustomize} (a symlink from its stdlib).
     */
    static final List<String> ETC_ENTRIES = List.of("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "passwd", "group",
            "nsswitch.conf", "localtime", "timezone", "hosts", "host.conf", "networks", "protocols", "services",
            "mime.types", "mailcap", "magic", "ssl", "ca-certificates", "alternatives", "os-release", "debian_version",
            "python3", "python3.11", "python3.12", "python3.13", "inputrc", "terminfo");

    /**
     * The prelude: writes its own pid to each cgroup.procs file up to {@code --}, opens the seccomp program (if any) on
     * fd 3 (bwrap takes it from an open descriptor; the JVM passes none but 0-2), then becomes the rest of the line.
     */
    static final String PRELUDE = "while [ \"$1\" != -- ]; do echo $$ > \"$1\" || exit 125; shift; done; shift; "
            + "[ -z \"$1\" ] || exec 3<\"$1\"; shift; exec \"$@\"";

    private BwrapCommandLine() {}

    /**
     * @param readable       what the process must read besides the system: interpreter, subject, dependencies, runtime
     * @param covered        files inside {@code readable} to show with another file's content (target to source)
     * @param seccompProgram the file holding {@link SeccompFilter#program()}, if this machine's architecture has one
     * @param cgroupProcs    the cgroup.procs files of the session's cgroups; none where the machine has no cgroups
     */
    static List<String> build(String bwrap, Path workspace, List<Path> readable, Map<Path, Path> covered, Limits limits,
                              long uid, Optional<Path> seccompProgram, List<Path> cgroupProcs, List<String> command) {
        List<String> argv = new ArrayList<>(List.of("/bin/sh", "-c", PRELUDE, "sh"));
        cgroupProcs.forEach(procs -> argv.add(procs.toString()));
        argv.addAll(List.of("--", seccompProgram.map(Path::toString).orElse("")));
        argv.addAll(List.of(bwrap, "--die-with-parent", "--new-session",
                "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts"));
        seccompProgram.ifPresent(program -> argv.addAll(List.of("--seccomp", "3")));
        List<Path> bound = new ArrayList<>();
        for (Path dir : SYSTEM_DIRS) {
            systemEntry(argv, bound, dir);
        }
        // bwrap would create /etc as the mount point of its first entry with mode 0700: the session's user could read
        // none of it (the loader cache, passwd, hosts: getaddrinfo fails even for localhost).
        argv.addAll(List.of("--perms", "0755", "--dir", "/etc"));
        for (String entry : ETC_ENTRIES) {
            systemEntry(argv, bound, Path.of("/etc", entry));
        }
        // /dev/shm: POSIX semaphores and shared memory (multiprocessing's locks); bwrap's /dev has it root's 0755.
        argv.addAll(List.of("--dev", "/dev", "--proc", "/proc",
                "--perms", "1777", "--size", Long.toString(limits.tmpBytes()), "--tmpfs", "/dev/shm",
                "--perms", "1777", "--size", Long.toString(limits.tmpBytes()), "--tmpfs", "/tmp"));
        for (Path path : readable) {
            if (!path.startsWith(workspace) && bound.stream().noneMatch(path::startsWith) && Files.exists(path)) {
                exposeParents(argv, path);
                argv.addAll(List.of("--ro-bind", path.toString(), path.toString()));
                bound.add(path);
            }
        }
        // After the directories they lie in: the later mount is the one seen.
        covered.forEach((target, source) -> {
            if (bound.stream().anyMatch(target::startsWith) && Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
                argv.addAll(List.of("--ro-bind", source.toString(), target.toString()));
            }
        });
        exposeParents(argv, workspace);
        argv.addAll(List.of("--bind", workspace.toString(), workspace.toString()));
        // What the run reads inside the workspace (its sources) is bound read-only on top: a mount point the session can
        // neither write under nor rename or replace.
        for (Path path : readable) {
            if (path.startsWith(workspace) && !path.equals(workspace) && Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
                argv.addAll(List.of("--ro-bind", path.toString(), path.toString()));
            }
        }
        argv.addAll(List.of("--chdir", workspace.toString(), "--"));

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

    /** A symlink is recreated as the same symlink (bwrap would bind its target under the link's name); absent is skipped. */
    private static void systemEntry(List<String> argv, List<Path> bound, Path path) {
        try {
            if (Files.isSymbolicLink(path)) {
                argv.addAll(List.of("--symlink", Files.readSymbolicLink(path).toString(), path.toString()));
            } else if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
                argv.addAll(List.of("--ro-bind", path.toString(), path.toString()));
                bound.add(path);
            }
        } catch (IOException e) {
            // Unreadable link: leave it out; the run fails visibly if it needed it, and sees nothing it should not.
        }
    }

    /**
     * bwrap creates missing mount points with mode 0700, which the unprivileged user could not traverse:
     * create the directories between {@code /} (or {@code /tmp}) and the bound path as 0755 first.
     */
    private static void exposeParents(List<String> argv, Path path) {
        Path root = path.startsWith("/tmp") ? Path.of("/tmp") : path.getRoot();
        for (int depth = root.getNameCount() + 1; depth < path.getNameCount(); depth++) {
            argv.addAll(List.of("--perms", "0755", "--dir", path.getRoot().resolve(path.subpath(0, depth)).toString()));
        }
    }
}
