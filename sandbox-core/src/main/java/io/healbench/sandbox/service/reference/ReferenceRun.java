package io.healbench.sandbox.service.reference;

import io.healbench.sandbox.service.model.Outcome;

/**
 * The REFERENCE run of an instance: its outcome (with the trace), the instance digest and interpreter version it was
 * recorded for, and whether this answer came from the cache.
 */
public record ReferenceRun(String instanceId, String digest, String python, Outcome outcome, boolean cached) {

    ReferenceRun fromCache() {
        return new ReferenceRun(instanceId, digest, python, outcome, true);
    }
}
