package io.healbench.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.common.dataset.Instance;
import io.healbench.common.guard.GuardMode;
import io.healbench.common.provenance.Provenance;
import io.healbench.proto.sandbox.v1.CreateSessionRequest;
import io.healbench.proto.sandbox.v1.ProbeResult;
import io.healbench.proto.sandbox.v1.ProbeSessionRequest;
import io.healbench.proto.sandbox.v1.Session;
import io.healbench.proto.sandbox.v1.SessionEvent;
import io.healbench.proto.sandbox.v1.Variant;
import io.healbench.sandbox.service.InstanceLookup;
import io.healbench.sandbox.service.session.SharedCodeCache;
import io.healbench.sandbox.service.workspace.Workspace;
import io.healbench.sandbox.service.workspace.WorkspaceMaterializer;
import io.healbench.testsupport.RabbitMqTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The shared code cache (docs/sandbox-isolation.md, "The shared code cache"): a real-bug session starts after a trusted
 * warm-up filled its partition and reads it, and neither a probe in the session's process nor one in a fork can write,
 * replace or delete what is in it; an injected instance's session reads its own copy of the partition, made at its
 * start, without the rewrites of the pristine file its bug changes (its answer), and cannot change that either.
 */
@QuarkusTest
@WithTestResource(GuardServiceResource.class)
@WithTestResource(RabbitMqTestResource.class)
class SharedCodeCacheTest extends SandboxSessionTest {

    private static final Duration WAIT = Duration.ofSeconds(120);
    /** No bug patch: its BUGGY variant is the pristine stdlib, so it shares a partition. */
    private static final String REAL_BUG = "sandbox-reference-fails";
    /** Has a bug patch: its BUGGY sessions must not read rewrites of the pristine statistics.py, which are its answer. */
    private static final String INJECTED = "sandbox-statistics-median-index-str-py3117";

    /** The two cache settings of the session's healrt spec, read from inside the session. */
    private static final String SPEC_CACHES = "import json\nspec = json.load(open('healrt-spec.json'))\n"
            + "(spec.get('shared_code_cache'), spec.get('code_cache'))";

    @Inject
    SharedCodeCache codeCache;

    @Inject
    InstanceLookup instances;

    @Inject
    WorkspaceMaterializer materializer;

    /** A crashed session with HealGuard off: in-process probes, the strongest a session has, need it. */
    private Session crashed(String instance) {
        Session session = sandbox.createSession(CreateSessionRequest.newBuilder().setInstanceId(instance).setVariant(Variant.BUGGY)
                .setIntercept(true).setGuardMode(io.healbench.proto.guard.v1.GuardMode.OFF).setRequestId(UUID.randomUUID().toString()).build());
        opened.add(session.getName());
        try (SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            watch.await("CRASHED", SessionEvent::hasCrashed, WAIT);
        }
        return session;
    }

    private ProbeResult probe(Session session, String code, boolean inplace) {
        ProbeResult result = sandbox.probeSession(ProbeSessionRequest.newBuilder().setName(session.getName()).setCode(code)
                .setInplace(inplace).build());
        assertTrue(result.getOk(), result.toString());
        return result;
    }

    @Test
    void aRealBugSessionReadsItsWarmedPartitionAndCannotChangeIt() throws IOException {
        Instance instance = instances.get(REAL_BUG);
        Path partition = codeCache.partition(instance).orElseThrow();
        delete(partition);

        Session session = crashed(REAL_BUG);
        Map<String, String> before = entries(partition);
        assertFalse(before.isEmpty(), "the warm-up published the rewrites of " + partition);
        assertTrue(codeCache.warmed(instance, codeCache.warmUpKey(instance, GuardMode.OFF)), "the warm-up is recorded");
        assertFalse(codeCache.warmed(instance, codeCache.warmUpKey(instance, GuardMode.ENFORCE)), "only for the mode it ran in");

        assertEquals("('" + partition + "', '')", probe(session, SPEC_CACHES, true).getValueRepr(),
                "the session reads the partition and writes no cache of its own");

        String existing = before.keySet().iterator().next();
        assertEquals(Long.toString(Files.size(partition.resolve(existing))),
                probe(session, "import os\nos.path.getsize(r'" + partition.resolve(existing) + "')", true).getValueRepr(),
                "the session sees the partition's entries");
        String attempts = "import os\nP = r'" + partition + "'\nresults = []\n"
                + "for name, act in [('plant', lambda: open(os.path.join(P, 'f' * 64 + '.healrt'), 'wb').write(b'x')),\n"
                + "                  ('overwrite', lambda: open(os.path.join(P, '" + existing + "'), 'r+b').write(b'x')),\n"
                + "                  ('replace', lambda: os.replace(os.path.join(P, '" + existing + "'), os.path.join(P, 'moved'))),\n"
                + "                  ('delete', lambda: os.unlink(os.path.join(P, '" + existing + "'))),\n"
                + "                  ('mark', lambda: open(os.path.join(P, 'warmed', 'forged'), 'w').write('x'))]:\n"
                + "    try:\n        act()\n        results.append(name + ' succeeded')\n"
                + "    except OSError as e:\n        results.append(name + ' ' + type(e).__name__)\n"
                + "results";
        for (boolean inplace : new boolean[] {true, false}) {
            String results = probe(session, attempts, inplace).getValueRepr();
            assertFalse(results.contains("succeeded"), "inplace=" + inplace + ": " + results);
            assertEquals(5, results.split("Error").length - 1, "inplace=" + inplace + ": every attempt failed: " + results);
        }
        assertEquals(before, entries(partition), "the partition is as the warm-up left it");
        assertFalse(Files.exists(partition.resolve("warmed").resolve("forged")));
    }

    @Test
    void anInjectedInstanceSessionReadsThePartitionWithoutItsAnswer() throws IOException {
        Instance instance = instances.get(INJECTED);
        Path partition = codeCache.partition(instance).orElseThrow();
        delete(partition);
        Workspace buggy = materializer.materialize(instance, io.healbench.sandbox.service.model.Variant.BUGGY);
        String answer;
        try {
            answer = Provenance.sha256(Files.readAllBytes(Path.of(buggy.plan().subjectRoot()).resolve("statistics.py")));
        } finally {
            materializer.delete(buggy.dir());
        }

        // The instance's project is statistics.py alone, so another module's rewrite is planted to show the view keeps
        // what is not the answer.
        String other = Provenance.sha256("print('another module')\n") + "-" + "a".repeat(64) + ".healrt";
        Files.createDirectories(partition);
        Files.writeString(partition.resolve(other), "another module's rewrite");

        Session session = crashed(INJECTED);
        Map<String, String> published = entries(partition);
        assertTrue(published.keySet().stream().anyMatch(name -> name.startsWith(answer + "-")),
                "the warm-up, a run of the pristine subject, published the answer's rewrite: " + published.keySet());
        // What a warm-up in another guard mode would publish while the session runs: the view is fixed at its start.
        Files.writeString(partition.resolve(answer + "-" + "0".repeat(64) + ".healrt"), "late");

        String seen = probe(session, "import json, os\nview = json.load(open('healrt-spec.json'))['shared_code_cache']\n"
                + "(view, sorted(os.listdir(view)), os.path.exists(r'" + partition + "'))", false).getValueRepr();
        assertFalse(seen.contains(answer), "the answer's rewrite is out of the session's view: " + seen);
        assertFalse(seen.contains(partition.toString()), "the session reads its own view, not the partition: " + seen);
        assertTrue(seen.endsWith(", False)"), "the partition itself is not in the sandbox: " + seen);
        assertTrue(seen.contains(other), "the view holds the rest of the partition: " + seen);

        String attempts = "import json, os\nV = json.load(open('healrt-spec.json'))['shared_code_cache']\nresults = []\n"
                + "for name, act in [('plant', lambda: open(os.path.join(V, '" + answer + "-' + 'f' * 64 + '.healrt'), 'wb').write(b'x')),\n"
                + "                  ('overwrite', lambda: open(os.path.join(V, '" + other + "'), 'r+b').write(b'x'))]:\n"
                + "    try:\n        act()\n        results.append(name + ' succeeded')\n"
                + "    except OSError as e:\n        results.append(name + ' ' + type(e).__name__)\n"
                + "results";
        String results = probe(session, attempts, true).getValueRepr();
        assertFalse(results.contains("succeeded"), "the view is read-only: " + results);
        assertEquals(published.get(other), entries(partition).get(other), "the partition's entry is unchanged");
    }

    private static void delete(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> paths = Files.walk(dir)) {
                for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
        }
    }

    /** Every file under the partition with the digest of its bytes. */
    private static Map<String, String> entries(Path partition) throws IOException {
        Map<String, String> digests = new TreeMap<>();
        try (Stream<Path> files = Files.list(partition)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                digests.put(file.getFileName().toString(), Provenance.sha256(Files.readAllBytes(file)));
            }
        }
        return digests;
    }

}
