package io.healbench.sandbox.service.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.sandbox.service.workspace.WorkspaceQuota;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which cgroup files a session's caps are written to, on a directory laid out as each cgroup version lays out its
 * filesystem (the kernel's own behaviour, the cap holding, is shown on this machine's real cgroup v1 by
 * SandboxHostileCodeTest; no machine here has v2).
 */
class SessionCgroupsTest {

    static final String V1_SELF = "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/abc\n0::/\n";
    static final String V2_SELF = "0::/system.slice/healbench.service\n";

    @Test
    void theServicesOwnGroupIsReadPerHierarchy() {
        assertEquals("/process_api/abc", SessionCgroups.ownPath(V1_SELF, "memory"));
        assertEquals("/", SessionCgroups.ownPath(V1_SELF, "pids"));
        assertEquals("/system.slice/healbench.service", SessionCgroups.ownPath(V2_SELF, ""));
        assertEquals("/", SessionCgroups.ownPath("", "memory"));
    }

    @Test
    void cgroupV1CapsMemoryWithoutSwapAndProcessesUnderTheServicesOwnGroups(@TempDir Path fs) throws Exception {
        Files.createDirectories(fs.resolve("memory/process_api/abc"));
        Files.createDirectories(fs.resolve("pids"));
        Files.writeString(fs.resolve("memory/memory.limit_in_bytes"), "9223372036854771712");
        Files.writeString(fs.resolve("pids/cgroup.procs"), "");
        SessionCgroups cgroups = SessionCgroups.detect(fs, V1_SELF, 536870912L, 32);
        assertEquals("cgroup v1", cgroups.accounting());
        Path memory = fs.resolve("memory/process_api/abc/healbench-sessions/session-1900000001");
        Path pids = fs.resolve("pids/healbench-sessions/session-1900000001");
        // The kernel makes a group's files; here they are made the way it would, so the writes land.
        Files.createDirectories(memory.getParent());
        Files.createDirectories(pids.getParent());
        SessionCgroups.SessionCgroup group = cgroups.create(1900000001L).orElseThrow();
        assertEquals(List.of(memory.resolve("cgroup.procs"), pids.resolve("cgroup.procs")), group.procsFiles());
        assertEquals("536870912", Files.readString(memory.resolve("memory.limit_in_bytes")));
        assertEquals("34", Files.readString(pids.resolve("pids.max")), "the uid's 32, and bwrap's two processes");
        Files.writeString(memory.resolve("memory.max_usage_in_bytes"), "123456");
        Files.writeString(memory.resolve("memory.oom_control"), "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n");
        var used = group.use(new WorkspaceQuota.Usage(-1, -1));
        assertEquals("cgroup v1", used.memoryAccounting());
        assertEquals(123456, used.peakMemoryBytes());
        assertEquals(3, used.oomKills());
        assertEquals(536870912L, used.memoryCapBytes());
    }

    @Test
    void cgroupV2NeedsMemoryAndPidsDelegatedAndThenCapsBoth(@TempDir Path fs) throws Exception {
        Path own = fs.resolve("system.slice/healbench.service");
        Files.createDirectories(own.resolve("healbench-sessions"));
        Files.writeString(fs.resolve("cgroup.controllers"), "cpu io memory pids");
        Files.writeString(own.resolve("healbench-sessions/cgroup.controllers"), "cpu io");
        assertEquals("none", SessionCgroups.detect(fs, V2_SELF, 1L << 30, 64).accounting(),
                "a group that is not given memory and pids cannot cap them: per-process limits only");

        Files.writeString(own.resolve("healbench-sessions/cgroup.controllers"), "cpu io memory pids");
        SessionCgroups cgroups = SessionCgroups.detect(fs, V2_SELF, 1L << 30, 64);
        assertEquals("cgroup v2", cgroups.accounting());
        assertEquals("+memory +pids", Files.readString(own.resolve("healbench-sessions/cgroup.subtree_control")));
        Path session = own.resolve("healbench-sessions/session-7");
        SessionCgroups.SessionCgroup group = cgroups.create(7).orElseThrow();
        assertEquals(List.of(session.resolve("cgroup.procs")), group.procsFiles());
        assertEquals(Long.toString(1L << 30), Files.readString(session.resolve("memory.max")));
        assertEquals("66", Files.readString(session.resolve("pids.max")));
        assertTrue(Files.notExists(session.resolve("memory.swap.max")), "swap is capped only where the kernel accounts it");
    }

    @Test
    void noMemoryControllerMeansNoSessionGroups(@TempDir Path fs) throws Exception {
        SessionCgroups none = SessionCgroups.detect(fs, V1_SELF, 1L << 30, 64);
        assertEquals("none", none.accounting());
        assertTrue(none.create(5).isEmpty());
    }
}
