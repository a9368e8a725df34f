package io.healbench.guard.service.analysis;

/** Every analysis thread is busy and the queue is full: the caller may try again (RESOURCE_EXHAUSTED). */
public final class AnalysisBusyException extends RuntimeException {
    public AnalysisBusyException(String message) {
        super(message);
    }
}
