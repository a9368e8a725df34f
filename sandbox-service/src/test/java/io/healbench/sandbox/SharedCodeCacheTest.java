package io.healbench.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.common.dataset.Instance;
import io.healbench.common.guard.GuardMode;
import io.healbench.proto.sandbox.v1.CreateSessionRequest;
import io.healbench.proto.sandbox.v1.ProbeResult;
import io.healbench.proto.sandbox.v1.ProbeSessionRequest;
import io.healbench.proto.sandbox.v1.Session;
import io.healbench.proto.sandbox.v1.SessionEvent;
import io.healbench.proto.sandbox.v1.Variant;
import io.healbench.sandbox.service.InstanceLookup;
import io.healbench.sandbox.service.session.SharedCodeCache;
import io.healbench.testsupport.RabbitMqTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The shared code cache (docs/sandbox-isolation.md, "The shared code cache"): a real-bug session starts after a trusted
 * warm-up filled its partition and reads it, and neither a probe in the session's process nor one in a fork can write,
 * replace or delete what is in it; an injected instance's session is given no partition at all.
 */
@QuarkusTest
@WithTestResource(GuardServiceResource.class)
@WithTestResource(RabbitMqTestResource.class)
class SharedCodeCacheTest extends SandboxSessionTest {

    private static final Duration WAIT = Duration.ofSeconds(120);
    /** No bug patch: its BUGGY variant is the pristine stdlib, so it shares a partition. */
    private static final String REAL_BUG = "sandbox-reference-fails";
    /** Has a bug patch: its sessions must not read rewrites of the pristine file, which are its answer. */
    private static final String INJECTED = "sandbox-statistics-median-index-str-py3117";

    /** The two cache settings of the session's healrt spec, read from inside the session. */
    private static final String SPEC_CACHES = "import json\nspec = json.load(open('healrt-spec.json'))\n"
            + "(spec.get('shared_code_cache'), spec.get('code_cache'))";

    @Inject
    SharedCodeCache codeCache;

    @Inject
    InstanceLookup instances;

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
    void anInjectedInstanceSessionGetsNoPartition() {
        Instance instance = instances.get(INJECTED);
        assertTrue(codeCache.partition(instance).isEmpty());
        Session session = crashed(INJECTED);
        assertEquals("(None, '')", probe(session, SPEC_CACHES, false).getValueRepr());
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
                digests.put(file.getFileName().toString(), sha256(Files.readAllBytes(file)));
            }
        }
        return digests;
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
