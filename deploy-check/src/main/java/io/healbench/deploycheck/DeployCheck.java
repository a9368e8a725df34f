package io.healbench.deploycheck;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Every check of a rendered overlay, with its findings in one list (empty when the overlay is fit to apply):
 * {@link ApiSchemaCheck}, {@link PodPolicyCheck}, {@link NetworkPolicies#unisolatedPods}, {@link SecretsCheck},
 * {@link ServiceCheck} and {@link AgentPoolCheck}.
 */
public final class DeployCheck {

    private final Path repositoryRoot;
    private final PolicyExceptions exceptions;

    public DeployCheck(Path repositoryRoot, PolicyExceptions exceptions) {
        this.repositoryRoot = repositoryRoot;
        this.exceptions = exceptions;
    }

    /** The checks with the repository's deploy/k8s/policy-exceptions.yaml. */
    public static DeployCheck of(Path repositoryRoot) {
        return new DeployCheck(repositoryRoot, PolicyExceptions.read(repositoryRoot.resolve("deploy/k8s/policy-exceptions.yaml")));
    }

    public List<String> check(List<Manifest> rendering) {
        List<String> findings = new ArrayList<>();
        findings.addAll(new ApiSchemaCheck().check(rendering));
        findings.addAll(new PodPolicyCheck(repositoryRoot, exceptions).check(rendering));
        findings.addAll(NetworkPolicies.unisolatedPods(rendering));
        findings.addAll(new SecretsCheck().check(rendering));
        findings.addAll(new ServiceCheck().check(rendering));
        findings.addAll(new AgentPoolCheck(repositoryRoot).check(rendering));
        return findings;
    }

    public PolicyExceptions exceptions() {
        return exceptions;
    }
}
