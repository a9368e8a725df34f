package io.healbench.sandbox.service.workspace;

import io.healbench.common.dataset.Instance;
import io.healbench.common.dataset.Subject;
import io.healbench.sandbox.config.SandboxPaths;
import io.healbench.sandbox.service.SandboxException;
import io.healbench.sandbox.service.SandboxException.Kind;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.file.Files;
import java.nio.file.Path;

/** Finds an instance's subject and interpreter on this machine; only {@code cpython-stdlib@X.Y.Z} for now. */
@ApplicationScoped
public class SubjectLocator {

    private final Path pyenvRoot;

    public SubjectLocator(SandboxPaths paths) {
        this.pyenvRoot = paths.pyenvRoot();
    }

    public SubjectInstallation locate(Instance instance) {
        Subject subject = instance.subject();
        if (!Subject.CPYTHON_STDLIB.equals(subject.kind())) {
            throw new SandboxException(Kind.UNIMPLEMENTED, "SUBJECT_KIND_UNSUPPORTED",
                    "instance " + instance.id() + ": subject kind '" + subject.kind()
                            + "' is not supported by the sandbox yet (only " + Subject.CPYTHON_STDLIB + "@X.Y.Z)");
        }
        String version = subject.version();
        if (!version.matches("3\\.\\d+\\.\\d+")) {
            throw new SandboxException(Kind.FAILED_PRECONDITION, "SUBJECT_VERSION_INVALID",
                    "instance " + instance.id() + ": subject version must be X.Y.Z, got '" + version + "'");
        }
        if (!version.equals(instance.python())) {
            throw new SandboxException(Kind.FAILED_PRECONDITION, "INTERPRETER_MISMATCH",
                    "instance " + instance.id() + ": a " + subject + " subject must run on python " + version
                            + ", but the instance asks for " + instance.python());
        }
        String minor = version.substring(0, version.lastIndexOf('.'));
        Path installation = pyenvRoot.resolve("versions").resolve(version);
        Path python = installation.resolve("bin").resolve("python");
        Path subjectRoot = installation.resolve("lib").resolve("python" + minor);
        if (!Files.isExecutable(python)) {
            throw new SandboxException(Kind.FAILED_PRECONDITION, "INTERPRETER_MISSING",
                    "instance " + instance.id() + ": interpreter " + python + " is missing (is CPython " + version
                            + " installed under pyenv root " + pyenvRoot + "?)");
        }
        if (!Files.isDirectory(subjectRoot)) {
            throw new SandboxException(Kind.FAILED_PRECONDITION, "SUBJECT_MISSING",
                    "instance " + instance.id() + ": stdlib directory " + subjectRoot + " is missing");
        }
        return new SubjectInstallation(subjectRoot, python, version);
    }
}
