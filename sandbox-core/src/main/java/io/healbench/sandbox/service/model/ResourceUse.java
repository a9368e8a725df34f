package io.healbench.sandbox.service.model;

/**
 * What one session used of its caps (docs/sandbox-isolation.md, "Limits"). {@code memoryAccounting} says which cap
 * held: {@code cgroup v2} or {@code cgroup v1} (the whole session's memory), or {@code none} (per-process limits
 * only; the memory fields are then 0). The workspace fields are -1 where the workspace is a plain directory (the
 * per-file limit only).
 */
public record ResourceUse(String memoryAccounting, long memoryCapBytes, long peakMemoryBytes, long oomKills,
                          long workspaceCapBytes, long workspaceBytes) {

    /** Nothing measured (a process that ran unisolated, or ended before it could be). */
    public static ResourceUse unmeasured() {
        return new ResourceUse("none", 0, 0, 0, -1, -1);
    }
}
