package io.healbench.sandbox.service.process;

import io.healbench.sandbox.config.SandboxIsolationConfig;
import io.healbench.sandbox.config.SandboxIsolationConfig.Isolation;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxException.Kind;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jboss.logging.Logger;

/**
 * Builds the full command line of a session process and starts it: the one place that decides how a
 * session is wrapped. With {@code healbench.sandbox.isolation=bwrap} (the default) that is
 * {@code setsid} + {@link BwrapCommandLine} (namespaces, a filesystem view of only what the run needs, seccomp, no network,
 * prlimit limits, an unprivileged uid of its own); with {@code none} only {@code setsid}. A machine that
 * cannot isolate refuses the session rather than run it unisolated.
 */
@ApplicationScoped
public class ProcessLauncher {

    private static final Logger LOG = Logger.getLogger(ProcessLauncher.class);
    private static final String SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin";

    /** The environment every session starts from; nothing of the service's own environment leaks in. */
    private static final Map<String, String> BASE_ENVIRONMENT = Map.of(
            "PATH", SANDBOX_PATH,
            "LANG", "C.UTF-8",
            "LC_ALL", "C.UTF-8");

    private final SandboxIsolationConfig config;
    private final SandboxUids uids;
    /**
     * Every process is started from this one long-lived thread. bwrap's --die-with-parent is
     * PR_SET_PDEATHSIG, which fires when the thread that started the process ends, not the JVM; a pooled
     * request thread retired while idle would otherwise kill the sessions it happened to start.
     */
    private final ExecutorService starter = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "sandbox-process-starter");
        thread.setDaemon(true);
        return thread;
    });
    private volatile boolean isolationVerified;
    private Path seccompProgram;
    /** Made once isolation is verified; until then, and without isolation, no session has a cgroup. */
    private volatile SessionCgroups cgroups;

    public ProcessLauncher(SandboxIsolationConfig config) {
        this.config = config;
        this.uids = new SandboxUids(config.sandboxUidBase(), Path.of(config.uidLockDir()));
    }

    /** The argument vector for {@code request}; {@code uid} is the session's user id when isolated. */
    List<String> commandLine(LaunchRequest request, OptionalLong uid, Optional<SessionCgroups.SessionCgroup> cgroup) {
        List<String> command = new ArrayList<>();
        command.add("setsid");
        if (uid.isEmpty()) {
            command.addAll(request.command());
            return command;
        }
        command.addAll(BwrapCommandLine.build(tool(config.bwrap()), request.workingDirectory(), request.readable(),
                request.covered(), config.limits(), uid.getAsLong(), seccompProgram(),
                cgroup.map(SessionCgroups.SessionCgroup::procsFiles).orElse(List.of()), request.command()));
        return command;
    }

    /**
     * The seccomp program, written once per service to a root-only file; none where syscall numbers are not
     * x86-64's (the session is then still confined by everything else, and the docs say so).
     */
    private synchronized Optional<Path> seccompProgram() {
        if (!"amd64".equals(System.getProperty("os.arch"))) {
            return Optional.empty();
        }
        if (seccompProgram == null) {
            try {
                Path file = Files.createTempFile("healbench-seccomp-", ".bpf",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                Files.write(file, SeccompFilter.program());
                file.toFile().deleteOnExit();
                seccompProgram = file;
            } catch (IOException e) {
                throw new SandboxException(Kind.INTERNAL, "LAUNCH_FAILED", "cannot write the seccomp program: " + e.getMessage(), e);
            }
        }
        return Optional.of(seccompProgram);
    }

    public GroupProcess launch(LaunchRequest request) {
        boolean isolated = config.isolation() == Isolation.BWRAP;
        if (isolated) {
            requireIsolation();
        }
        OptionalLong uid = isolated ? OptionalLong.of(uids.lease()) : OptionalLong.empty();
        Optional<SessionCgroups.SessionCgroup> cgroup = Optional.empty();
        try {
            Path tmp = request.workingDirectory().resolve("tmp");
            Files.createDirectories(tmp);
            if (uid.isPresent()) {
                chownTree(request.workingDirectory(), uid.getAsLong());
                cgroup = cgroups.create(uid.getAsLong());
            }
            ProcessBuilder builder = new ProcessBuilder(commandLine(request, uid, cgroup)).directory(request.workingDirectory().toFile());
            Map<String, String> env = builder.environment();
            env.clear();
            env.putAll(BASE_ENVIRONMENT);
            env.put("HOME", request.workingDirectory().toString());
            // Temporary files go to the workspace (on disk, each bounded by the file-size limit, deleted with it).
            env.put("TMPDIR", tmp.toString());
            env.putAll(request.environment());
            Process process = starter.submit(builder::start).get(30, TimeUnit.SECONDS);
            process.getOutputStream().close();
            ExitClassifier classifier = new ExitClassifier(isolated ? config.limits() : null);
            return new GroupProcess(process, uid, cgroup, request.workingDirectory(), classifier, () -> uid.ifPresent(uids::release));
        } catch (IOException | ExecutionException | TimeoutException | RuntimeException e) {
            cgroup.ifPresent(SessionCgroups.SessionCgroup::remove);
            uid.ifPresent(uids::release);
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new SandboxException(Kind.INTERNAL, "LAUNCH_FAILED", "cannot start " + request.command() + ": " + cause.getMessage(), cause);
        } catch (InterruptedException e) {
            cgroup.ifPresent(SessionCgroups.SessionCgroup::remove);
            uid.ifPresent(uids::release);
            Thread.currentThread().interrupt();
            throw new SandboxException(Kind.INTERNAL, "INTERRUPTED", "interrupted while starting " + request.command(), e);
        }
    }

    /**
     * Fails with FAILED_PRECONDITION / ISOLATION_UNAVAILABLE unless bwrap, prlimit and setpriv are installed,
     * the service runs as root (needed to give each session its own uid), and bwrap can create its
     * namespaces here (checked once by a trial run).
     */
    private synchronized void requireIsolation() {
        if (isolationVerified) {
            return;
        }
        List<String> missing = new ArrayList<>();
        for (String name : List.of(config.bwrap(), "prlimit", "setpriv")) {
            if (find(name).isEmpty()) {
                missing.add(name);
            }
        }
        if (!missing.isEmpty()) {
            throw unavailable("not found on " + SANDBOX_PATH + ": " + missing + " (bwrap is the Debian package bubblewrap; "
                    + "prlimit and setpriv are in util-linux)");
        }
        if (!runningAsRoot()) {
            throw unavailable("the sandbox must run as root to give each session an unprivileged uid of its own");
        }
        try {
            Process trial = new ProcessBuilder(tool(config.bwrap()), "--ro-bind", "/", "/", "--unshare-net", "--unshare-pid",
                    "--unshare-ipc", "--unshare-uts", "--", tool("setpriv"), "--reuid=" + config.sandboxUidBase(), "--", "true")
                    .redirectErrorStream(true).start();
            String output = new String(trial.getInputStream().readAllBytes());
            if (!trial.waitFor(10, TimeUnit.SECONDS) || trial.exitValue() != 0) {
                throw unavailable("a trial run of bwrap failed: " + output.strip());
            }
        } catch (IOException e) {
            throw unavailable("cannot run bwrap: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unavailable("interrupted while trying bwrap");
        }
        cgroups = SessionCgroups.detect(Path.of("/sys/fs/cgroup"), selfCgroup(), config.limits().sessionMemoryBytes(),
                config.limits().processes());
        LOG.infof("session memory cap: %s", cgroups.capsSessions()
                ? cgroups.accounting() + ", " + config.limits().sessionMemoryBytes() + " bytes per session" : "none, per-process limits only");
        isolationVerified = true;
    }

    private static String selfCgroup() {
        try {
            return Files.readString(Path.of("/proc/self/cgroup"));
        } catch (IOException e) {
            return "";
        }
    }

    private static SandboxException unavailable(String why) {
        return new SandboxException(Kind.FAILED_PRECONDITION, "ISOLATION_UNAVAILABLE",
                "cannot isolate the session (healbench.sandbox.isolation=bwrap): " + why
                        + "; install what is missing, or set healbench.sandbox.isolation=none to run unisolated on purpose");
    }

    /** The absolute path of a tool, found like the sandbox's own PATH would find it. */
    private String tool(String name) {
        return find(name).map(Path::toString)
                .orElseThrow(() -> unavailable(name + " not found on " + SANDBOX_PATH));
    }

    private static Optional<Path> find(String name) {
        if (name.contains("/")) {
            Path path = Path.of(name);
            return Files.isExecutable(path) ? Optional.of(path) : Optional.empty();
        }
        for (String dir : SANDBOX_PATH.split(":")) {
            Path candidate = Path.of(dir, name);
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private static boolean runningAsRoot() {
        try {
            return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue() == 0;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    /** Hands the workspace to the session's uid: it is the only directory the process may write. */
    private static void chownTree(Path root, long uid) throws IOException {
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                chown(dir, uid);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                chown(file, uid);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static void chown(Path path, long uid) throws IOException {
        Files.setAttribute(path, "unix:uid", (int) uid, LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(path, "unix:gid", (int) uid, LinkOption.NOFOLLOW_LINKS);
    }

    @PreDestroy
    void stop() {
        starter.shutdown();
    }
}
