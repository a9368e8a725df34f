package io.healbench.sandbox.service.model;

/**
 * How a run's trace compares with the instance's REFERENCE run (docs/trace-similarity.md): trace similarity,
 * presence-only overlap, and whether the reference run passed its target test.
 */
public record ReferenceComparison(double traceSimilarity, double traceOverlap, boolean referencePassed) {}
