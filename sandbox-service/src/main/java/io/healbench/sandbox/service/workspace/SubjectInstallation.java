package io.healbench.sandbox.service.workspace;

import java.nio.file.Path;

/** Where an instance's pristine subject lives on this machine and which interpreter runs it. */
public record SubjectInstallation(Path subjectRoot, Path python, String pythonVersion) {}
