package io.healbench.sandbox.service.process;

import io.healbench.common.outcome.ExitCause;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.sandbox.config.SandboxIsolationConfig.Limits;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The isolated command line and the reading of exit statuses, without starting anything. */
class IsolationCommandLineTest {

    static final Limits LIMITS = new Limits() {
        public long cpuSeconds() { return 60; }
        public long addressSpaceBytes() { return 2147483648L; }
        public int openFiles() { return 256; }
        public int processes() { return 32; }
        public long fileSizeBytes() { return 1073741824L; }
        public long tmpBytes() { return 67108864L; }
        public long sessionMemoryBytes() { return 4294967296L; }
        public long workspaceBytes() { return 2147483648L; }
    };

    @Test
    void theViewIsBuiltFromWhatTheRunNeedsAndTheWorkspaceIsTheOnlyWritableBind(@TempDir Path pythons) throws Exception {
        Path ws = Path.of("/tmp/healbench/workspaces/abc");
        // An interpreter outside /usr, as a pyenv one is: it must exist to be bound, so the test makes one.
        Path interpreter = Files.createDirectories(pythons.resolve("versions/3.11.7"));
        List<String> argv = BwrapCommandLine.build("/usr/bin/bwrap", ws,
                List.of(interpreter, Path.of("/usr/lib/python3.11"), Path.of("/no/such/dir")), Map.of(),
                LIMITS, 1900000007L, Optional.of(Path.of("/tmp/filter.bpf")),
                List.of(Path.of("/sys/fs/cgroup/memory/healbench-sessions/session-1900000007/cgroup.procs")),
                List.of(interpreter.resolve("bin/python3.11").toString(), "-m", "healrt"));
        String line = String.join(" ", argv);
        assertTrue(line.startsWith("/bin/sh -c " + BwrapCommandLine.PRELUDE + " sh /sys/fs/cgroup/memory/healbench-sessions/"
                + "session-1900000007/cgroup.procs -- /tmp/filter.bpf /usr/bin/bwrap --die-with-parent "
                + "--new-session --unshare-net --unshare-pid --unshare-ipc --unshare-uts --seccomp 3 --ro-bind /usr /usr "), line);
        assertFalse(line.contains("--ro-bind / /"), "nothing of / but what is listed: " + line);
        for (String hidden : List.of("/run", "/var", "/root ", "/home", "/work", "/etc ")) {
            assertFalse(line.contains("--ro-bind " + hidden), hidden + " must not be bound: " + line);
        }
        if (Files.isSymbolicLink(Path.of("/bin"))) {
            assertTrue(line.contains("--symlink usr/bin /bin"), line);
        }
        assertTrue(line.contains("--perms 0755 --dir /etc --ro-bind /etc/ld.so.cache /etc/ld.so.cache"),
                "/etc readable by the session's user (bwrap would make it 0700): " + line);
        assertTrue(line.contains("--ro-bind /etc/passwd /etc/passwd"), line);
        assertTrue(line.contains("--perms 0755 --dir " + pythons + " --perms 0755 --dir " + pythons.resolve("versions")
                + " --ro-bind " + interpreter + " " + interpreter + " "), "the interpreter, under directories the session can enter: " + line);
        assertFalse(line.contains("--ro-bind /usr/lib/python3.11"), "inside /usr already: " + line);
        assertFalse(line.contains("/no/such/dir"), "an absent path is not bound: " + line);
        assertTrue(line.contains("--perms 0755 --dir /tmp/healbench --perms 0755 --dir /tmp/healbench/workspaces "
                + "--bind /tmp/healbench/workspaces/abc /tmp/healbench/workspaces/abc --chdir /tmp/healbench/workspaces/abc -- "), line);
        assertEquals(1, argv.stream().filter(a -> a.equals("--bind")).count(), "one writable bind");
        assertTrue(line.contains("-- prlimit --cpu=60:65 --as=2147483648 --nofile=256 --nproc=32 --fsize=1073741824 --core=0 "
                + "-- setpriv --reuid=1900000007 --regid=1900000007 --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs "
                + "-- " + interpreter.resolve("bin/python3.11") + " -m healrt"), line);
    }

    @Test
    void whatTheRunOnlyReadsInsideTheWorkspaceIsBoundReadOnlyOnTopOfIt(@TempDir Path ws) throws Exception {
        Files.createDirectories(ws.resolve("src/pkg"));
        List<String> argv = BwrapCommandLine.build("/usr/bin/bwrap", ws, List.of(ws.resolve("src"), ws.resolve("no-such-dir")),
                Map.of(), LIMITS, 1900000007L, Optional.empty(), List.of(), List.of("python3"));
        String line = String.join(" ", argv);
        assertTrue(line.contains("--bind " + ws + " " + ws + " --ro-bind " + ws.resolve("src") + " " + ws.resolve("src")
                + " --chdir " + ws + " -- "), "the sources read-only, after the writable workspace: " + line);
        assertFalse(line.contains("no-such-dir"), line);
        assertTrue(line.startsWith("/bin/sh -c " + BwrapCommandLine.PRELUDE + " sh -- " + " /usr/bin/bwrap "),
                "no cgroup, no filter: the prelude only execs: " + line);
    }

    @Test
    void aCoveredFileIsBoundOverItsPristineCopyAfterTheDirectoryItLiesIn(@TempDir Path host) throws Exception {
        Path subject = Files.createDirectories(host.resolve("subject/pkg"));
        Path pristine = Files.writeString(subject.resolve("mod.py"), "pristine\n");
        Path ws = Files.createDirectories(host.resolve("ws/src/pkg"));
        Path buggy = Files.writeString(ws.resolve("mod.py"), "buggy\n");
        Path elsewhere = Files.writeString(Files.createDirectories(host.resolve("unbound")).resolve("x.py"), "x\n");
        Map<Path, Path> covered = new LinkedHashMap<>();
        covered.put(pristine, buggy);
        covered.put(subject.resolve("gone.py"), Path.of("/dev/null"));
        covered.put(elsewhere, Path.of("/dev/null"));
        List<String> argv = BwrapCommandLine.build("/usr/bin/bwrap", host.resolve("ws"), List.of(host.resolve("subject")), covered,
                LIMITS, 1900000007L, Optional.empty(), List.of(), List.of("python3"));
        String line = String.join(" ", argv);
        String root = "--ro-bind " + host.resolve("subject") + " " + host.resolve("subject");
        String cover = "--ro-bind " + buggy + " " + pristine;
        assertTrue(line.contains(root) && line.indexOf(cover) > line.indexOf(root), "covered after its directory: " + line);
        assertFalse(line.contains("gone.py"), "an absent file is not covered: " + line);
        assertFalse(line.contains(elsewhere.toString()), "nothing outside what is bound: " + line);
    }

    @Test
    void theSeccompProgramIsWholeInstructionsThatEndInReturns() {
        byte[] program = SeccompFilter.program();
        assertEquals(0, program.length % 8, "struct sock_filter is 8 bytes");
        ByteBuffer code = ByteBuffer.wrap(program).order(ByteOrder.nativeOrder());
        assertEquals(0x20, code.getShort(0), "it starts by loading the architecture");
        assertEquals(SeccompFilter.AUDIT_ARCH_X86_64, code.getInt(8 + 4));
        assertEquals(0x06, code.getShort(program.length - 8), "the last instruction returns");
    }

    @Test
    void exitStatusesNameTheirCause() {
        ExitClassifier classifier = new ExitClassifier(LIMITS);
        ProcessExit cpu = classifier.classify(128 + 24, "", 0, 0);
        assertEquals(ExitCause.LIMIT, cpu.cause());
        assertTrue(cpu.detail().startsWith("cpu: SIGXCPU (signal 24)") && cpu.detail().contains("60 s"), cpu.detail());
        assertTrue(classifier.classify(128 + 25, "", 0, 0).detail().startsWith("file-size: SIGXFSZ"));
        ProcessExit memory = classifier.classify(1, "Traceback (most recent call last):\n  ...\nMemoryError\n", 0, 0);
        assertEquals(ExitCause.LIMIT, memory.cause());
        assertTrue(memory.detail().startsWith("memory:") && memory.detail().contains("2147483648"), memory.detail());
        ProcessExit killed = classifier.classify(128 + 9, "", 0, 0);
        assertEquals(ExitCause.SIGNAL, killed.cause());
        assertTrue(killed.detail().startsWith("SIGKILL (signal 9)"), killed.detail());
        assertEquals(ExitCause.EXITED, classifier.classify(3, "bye", 0, 0).cause());
        assertEquals(ExitCause.EXITED, classifier.classify(0, "MemoryError handled", 0, 0).cause());
        ProcessExit capped = classifier.classify(128 + 9, "", 2, 536870912L);
        assertEquals(ExitCause.LIMIT, capped.cause(), "a kill by the kernel at the session's cap is that limit, not a plain signal");
        assertTrue(capped.detail().startsWith("memory: the session's memory cap of 536870912 bytes"), capped.detail());
    }
}
