package io.healbench.guard.service.analysis;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/** One step of a flow, linked to the step before it: a chain read from the heal source to here. Immutable. */
final class Step {

    /** Longer chains (a flow around a loop many times) stop growing; the verdict does not depend on them. */
    static final int MAX_LENGTH = 200;

    final Step previous;
    final String file;
    final int line;
    final int col;
    final String description;
    final int length;

    private Step(Step previous, String file, int line, int col, String description) {
        this.previous = previous;
        this.file = file;
        this.line = line;
        this.col = col;
        this.description = description;
        this.length = previous == null ? 1 : previous.length + 1;
    }

    static Step source(String file, int line, int col, String description) {
        return new Step(null, file, line, col, description);
    }

    Step then(String stepFile, int stepLine, int stepCol, String stepDescription) {
        if (length >= MAX_LENGTH || (stepFile.equals(file) && stepLine == line && stepDescription.equals(description))) {
            return this;
        }
        return new Step(this, stepFile, stepLine, stepCol, stepDescription);
    }

    List<AnalysisResult.WitnessStep> path() {
        Deque<AnalysisResult.WitnessStep> steps = new ArrayDeque<>();
        for (Step step = this; step != null; step = step.previous) {
            steps.addFirst(new AnalysisResult.WitnessStep(step.file, step.line, step.col, step.description));
        }
        return List.copyOf(steps);
    }
}
