package io.healbench.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.proto.guard.v1.GuardMode;
import io.healbench.proto.outcome.v1.ResumeMode;
import io.healbench.proto.sandbox.v1.CrashContext;
import io.healbench.proto.sandbox.v1.HealResult;
import io.healbench.proto.sandbox.v1.HealSessionRequest;
import io.healbench.proto.sandbox.v1.Outcome;
import io.healbench.proto.sandbox.v1.ProbeResult;
import io.healbench.proto.sandbox.v1.ProbeSessionRequest;
import io.healbench.proto.sandbox.v1.Session;
import io.healbench.proto.sandbox.v1.SessionEvent;
import io.healbench.sandbox.config.SandboxPaths;
import io.healbench.sandbox.service.reference.ReferenceCache;
import io.healbench.testsupport.RabbitMqTestResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A hostile session looks for what it must not see (docs/sandbox-isolation.md, "What a session sees"), from the
 * program itself, from a forked probe and from a heal: the host's PostgreSQL socket and a superuser login through it,
 * the answer key (fix patches, the dataset, cached references), the caches, the repository, the realm files with
 * their passwords, the service user's home, another session's workspace, and a nested user namespace. Real bwrap,
 * real CPython, real healrt, real PostgreSQL on the host. HealGuard is off: what is shown here is the sandbox's view.
 */
@QuarkusTest
@WithTestResource(GuardServiceResource.class)
@WithTestResource(RabbitMqTestResource.class)
class SandboxSessionViewTest extends SandboxSessionTest {

    static final String VIEW = "sandbox-hostile-view";
    static final String NORMAL = "sandbox-colorsys-typeerror-rgb-to-hsv";
    static final String CORRECT_HEAL = "h = 4.0+gc-rc";
    static final Duration WAIT = Duration.ofSeconds(60);
    static final String HEAL_REPORT = "view-heal.txt";

    @Inject
    SandboxPaths paths;

    @Inject
    ReferenceCache references;

    @Test
    void theProgramSeesNoHostSocketNoHomeNoOtherWorkspaceAndCannotLogInOrNestAUserNamespace() {
        Session neighbour = create(NORMAL);
        Session session = create(VIEW);
        try (SessionEvents neighbourWatch = new SessionEvents(sandboxStreams, neighbour.getName());
             SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            neighbourWatch.await("CRASHED", SessionEvent::hasCrashed, WAIT); // its workspace exists beside ours
            CrashContext crash = watch.await("CRASHED", SessionEvent::hasCrashed, WAIT).getCrashed();
            String view = crash.getLocalsList().stream().filter(v -> v.getName().equals("view")).findFirst()
                    .orElseThrow(() -> new AssertionError("no local 'view': " + crash.getLocalsList())).getRepr();
            for (String label : List.of("pg-socket", "pg-run", "pg-data", "home", "shadow", "run", "dataset", "readme")) {
                assertTrue(view.contains("'" + label + ":hidden'"), label + " must be hidden: " + view);
            }
            assertTrue(view.contains("'repo:healrt'"), "of the repository only the runtime: " + view);
            assertTrue(view.contains("'siblings:1'"), "only its own workspace under the workspace root: " + view);
            assertTrue(view.contains("'psql:refused'"), "no PostgreSQL login: " + view);
            assertTrue(view.contains("'userns:refused'"), "no nested user namespace: " + view);
        }
    }

    @Test
    void aForkedProbeAndAHealFindNothingOutsideTheSessionsOwnView() throws IOException {
        Session neighbour = create(NORMAL);
        Session session = create(NORMAL);
        try (SessionEvents neighbourWatch = new SessionEvents(sandboxStreams, neighbour.getName());
             SessionEvents watch = new SessionEvents(sandboxStreams, session.getName())) {
            neighbourWatch.await("CRASHED", SessionEvent::hasCrashed, WAIT);
            watch.await("CRASHED", SessionEvent::hasCrashed, WAIT);
            List<Path> secrets = secrets(workspaceOf(neighbour));
            Path workspace = workspaceOf(session);
            String check = "import os\nfound = []\nfor p in " + pythonList(secrets) + ":\n"
                    + "    if os.path.lexists(p):\n        found.append(p)\n"
                    + "if os.system(\"psql -h /var/run/postgresql -U postgres -c 'select 1' >/dev/null 2>&1\") == 0:\n"
                    + "    found.append('psql login')\n"
                    + "if os.system('unshare -U true >/dev/null 2>&1') == 0:\n    found.append('nested user namespace')\n"
                    + "try:\n    open('src/planted.py', 'w').close()\n    found.append('wrote into the sources')\nexcept OSError:\n    pass\n"
                    + "try:\n    os.rename('src', 'src.moved')\n    found.append('moved the sources')\nexcept OSError:\n    pass\n"
                    + "try:\n    os.symlink('/etc', 'src/etc-link')\n    found.append('linked out of the sources')\nexcept OSError:\n    pass\n"
                    + "if not os.path.exists('plan.json'):\n    found.append('CONTROL FAILED: own workspace not visible')\n"
                    + "try:\n    open('/etc/passwd').read(1)\n    open('/etc/hosts').read(1)\n"
                    + "except OSError as error:\n    found.append('CONTROL FAILED: /etc unreadable: ' + str(error))\n";

            ProbeResult probe = sandbox.probeSession(ProbeSessionRequest.newBuilder().setName(session.getName())
                    .setCode(check + "found").build());
            assertTrue(probe.getOk(), probe.toString());
            assertEquals("[]", probe.getValueRepr(), "seen from a forked probe");

            HealResult heal = sandbox.healSession(HealSessionRequest.newBuilder().setName(session.getName()).setResume(ResumeMode.SKIP)
                    .setCode(check + "import pathlib\npathlib.Path('" + HEAL_REPORT + "').write_text(repr(found))\n"
                            + CORRECT_HEAL).build());
            assertTrue(heal.getApplied(), heal.toString());
            Outcome outcome = watch.await("FINISHED", SessionEvent::hasFinished, WAIT).getFinished();
            assertTrue(outcome.getSummary().getPassed(), outcome.toString());
            Path report = workspace.resolve(HEAL_REPORT);
            assertEquals("[]", Files.readString(report), "seen from the heal, in the live process");
        }
    }

    /** What a session must not find, all of it present on the host (a missing one would prove nothing). */
    private List<Path> secrets(Path neighbourWorkspace) throws IOException {
        Path repo = paths.home();
        List<Path> secrets = new ArrayList<>(List.of(
                repo.resolve("README.md"),
                repo.resolve("deploy/keycloak/healbench-acme-realm.json"),
                paths.datasetDir().resolve("instances").resolve(NORMAL).resolve("instance.yaml"),
                neighbourWorkspace.resolve("plan.json"),
                Path.of(System.getProperty("user.home"), ".cache", "healbench", "subjects"),
                Path.of("/var/run/postgresql/.s.PGSQL.5432")));
        try (Stream<Path> instances = Files.list(repo.resolve("dataset/instances"))) {
            instances.map(dir -> dir.resolve("fix.patch")).filter(Files::exists).findFirst().ifPresent(secrets::add);
        }
        Files.createDirectories(references.directory());
        secrets.add(references.directory());
        List<Path> missing = secrets.stream().filter(p -> !Files.exists(p)).toList();
        assertEquals(List.of(), missing, "the test needs every secret present on the host");
        return secrets;
    }

    /** A session's workspace, as its own process sees it: bound at the same path as on the host. */
    private Path workspaceOf(Session session) {
        ProbeResult cwd = sandbox.probeSession(ProbeSessionRequest.newBuilder().setName(session.getName()).setCode("import os\nos.getcwd()").build());
        assertTrue(cwd.getOk(), cwd.toString());
        String repr = cwd.getValueRepr();
        return Path.of(repr.substring(1, repr.length() - 1));
    }

    private static String pythonList(List<Path> paths) {
        return paths.stream().map(p -> "r'" + p + "'").collect(Collectors.joining(", ", "[", "]"));
    }

    private Session create(String instance) {
        Session session = TestSessions.buggy(sandbox, instance, GuardMode.OFF);
        opened.add(session.getName());
        return session;
    }
}
