package io.healbench.agent.service.llm;

import java.util.regex.Pattern;

/**
 * Shows paths inside a session's workspace relative to its source root, as read_file takes them, in everything the
 * model reads. The agent has no business with the host's layout, and a workspace's random name would make every
 * prompt differ from its recording, so no cassette could replay it.
 */
public final class WorkspacePaths {

    private static final Pattern WORKSPACE_SOURCES = Pattern.compile("/[^\\s'\"]*/workspaces/[^/\\s'\"]+/[^/\\s'\"]+/src/");

    private WorkspacePaths() {
    }

    public static String relative(String text) {
        return WORKSPACE_SOURCES.matcher(text).replaceAll("");
    }
}
