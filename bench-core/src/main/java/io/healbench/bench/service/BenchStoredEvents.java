package io.healbench.bench.service;

import io.healbench.bench.repository.BenchAttemptEvent;

/** Reads a stored event back into the form the ingestor received it in, for re-grading (the wire format is the adapter's). */
public interface BenchStoredEvents {

    /** @throws IllegalArgumentException when the stored payload is not an event this service wrote */
    BenchIncomingEvent read(BenchAttemptEvent stored);
}
