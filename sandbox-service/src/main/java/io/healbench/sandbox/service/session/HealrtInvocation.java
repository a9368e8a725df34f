package io.healbench.sandbox.service.session;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.healbench.common.dataset.Instance;
import io.healbench.sandbox.config.SandboxConfig;
import io.healbench.sandbox.config.SandboxPaths;
import io.healbench.sandbox.service.process.LaunchRequest;
import io.healbench.sandbox.service.workspace.Workspace;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * How a workspace is run under healrt: writes {@code healrt-spec.json} (docs/control-protocol.md) and says
 * which interpreter to start with which environment.
 */
@ApplicationScoped
public class HealrtInvocation {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final String ENV_NAME = "[A-Z_][A-Z0-9_]*";

    private final Path healrtDir;
    private final int maxHealPoints;
    private final Duration probeTimeout;
    private final Duration healTimeout;

    public HealrtInvocation(SandboxPaths paths, SandboxConfig config) {
        this.healrtDir = paths.healrtDir();
        this.maxHealPoints = config.maxHealPoints();
        this.probeTimeout = config.probeTimeout();
        this.healTimeout = config.healTimeout();
    }

    public LaunchRequest prepare(Workspace workspace, boolean intercept) throws IOException {
        Instance instance = workspace.instance();
        String target = workspace.subject().subjectRoot().resolve(instance.targetTest()).toString();
        List<String> pytestArgs = new ArrayList<>(List.of(target, "-q", "-p", "no:cacheprovider", "--rootdir", workspace.dir().toString()));
        Map<String, String> env = new LinkedHashMap<>();
        instance.determinism().forEach((key, value) -> {
            if (key.equals("basetemp")) {
                pytestArgs.add("--basetemp=" + workspace.dir().resolve("basetemp").resolve(value).normalize());
            } else if (key.matches(ENV_NAME)) {
                env.put(key, value);
            }
        });
        env.put("PYTHONPATH", healrtDir.toString());
        env.put("HEALRT_CONTROL", workspace.controlSocket().toString());
        env.put("PYTHONDONTWRITEBYTECODE", "1");

        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("source_dir", workspace.sourceDir().toString());
        spec.put("project_modules", projectModules(instance.projectRoots()));
        spec.put("pytest_args", pytestArgs);
        // healrt resolves the target's file against its cwd (the workspace): give it the absolute node id.
        spec.put("target_test", target);
        spec.put("intercept", intercept);
        spec.put("max_heal_points", maxHealPoints);
        spec.put("probe_timeout_s", probeTimeout.toMillis() / 1000.0);
        spec.put("heal_timeout_s", healTimeout.toMillis() / 1000.0);
        spec.put("outcome_file", workspace.outcomeFile().toString());
        JSON.writeValue(workspace.runtimeSpec().toFile(), spec);

        List<String> command = List.of(workspace.subject().python().toString(), "-m", "healrt", "--spec", workspace.runtimeSpec().toString());
        // The interpreter's installation (its stdlib too), the pristine subject and the runtime: what it reads.
        Path interpreterPrefix = workspace.subject().python().toAbsolutePath().getParent().getParent();
        List<Path> readable = List.of(interpreterPrefix, workspace.subject().subjectRoot(), healrtDir);
        return new LaunchRequest(command, env, workspace.dir(), readable);
    }

    /** Top-level module names of the project roots: {@code configparser.py} gives configparser, {@code email/} gives email. */
    static List<String> projectModules(List<String> projectRoots) {
        LinkedHashSet<String> modules = new LinkedHashSet<>();
        for (String root : projectRoots) {
            String first = root.replace('\\', '/').replaceAll("^/+", "").split("/")[0];
            modules.add(first.endsWith(".py") ? first.substring(0, first.length() - 3) : first);
        }
        return List.copyOf(modules);
    }
}
