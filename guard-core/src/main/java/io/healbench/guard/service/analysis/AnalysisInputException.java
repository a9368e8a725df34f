package io.healbench.guard.service.analysis;

/** The analysis input is malformed (a tree, the policy, a Δk location): the request is refused, naming the part. */
public class AnalysisInputException extends RuntimeException {

    public AnalysisInputException(String message) {
        super(message);
    }
}
