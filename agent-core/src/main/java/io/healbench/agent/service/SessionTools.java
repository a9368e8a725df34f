package io.healbench.agent.service;

import java.time.Duration;
import java.util.List;

/**
 * What an agent may do at a heal point besides deciding: probe the paused process (in a fork) and read the
 * session's sources through the sandbox's read-only view. Every method throws {@link AgentSandboxFailure} when the
 * sandbox cannot serve it and {@link SessionTools.Refused} for a request the sandbox refuses (a bad path, a bad
 * pattern, no crash paused): the agent sees the refusal, the attempt goes on.
 */
public interface SessionTools {

    /** Runs code in a fork of the paused process; {@code timeout} zero means the sandbox's own (which caps it). */
    ProbeReply probe(String code, Duration timeout);

    /** Lines {@code start..end} (1-based, inclusive; 0 means the file's first or last line). */
    FileView readFile(String path, int start, int end);

    /** Files under {@code directory} (recursive) whose path matches {@code glob} (empty: all). */
    FileListing listFiles(String directory, String glob);

    /** Lines matching the regular expression, in files matching {@code glob} (empty: all). */
    CodeMatches searchCode(String pattern, String glob);

    record ProbeReply(boolean ok, String output, String valueRepr, String error) {
    }

    record FileView(String path, String content, int totalLines, int startLine, int endLine, boolean truncated) {
    }

    record FileEntry(String path, long size, boolean directory) {
    }

    /** {@code more}: the listing was cut at its page. */
    record FileListing(List<FileEntry> entries, boolean more) {
    }

    record CodeMatch(String path, int line, String text) {
    }

    record CodeMatches(List<CodeMatch> matches, boolean more, int filesSkipped) {
    }

    /** The sandbox refused this request (its reason says why); the session is unharmed. */
    final class Refused extends RuntimeException {
        public Refused(String reason) {
            super(reason);
        }
    }

    /** For agents that decide from the crash alone, and for tests of such agents. */
    SessionTools NONE = new SessionTools() {
        @Override
        public ProbeReply probe(String code, Duration timeout) {
            throw new Refused("this heal point offers no probes");
        }

        @Override
        public FileView readFile(String path, int start, int end) {
            throw new Refused("this heal point offers no file views");
        }

        @Override
        public FileListing listFiles(String directory, String glob) {
            throw new Refused("this heal point offers no file views");
        }

        @Override
        public CodeMatches searchCode(String pattern, String glob) {
            throw new Refused("this heal point offers no file views");
        }
    };
}
