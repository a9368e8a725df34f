package io.healbench.sandbox.service.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The definition of docs/trace-similarity.md, on traces whose answers were worked out by hand. */
class TraceSimilarityTest {

    private static final double EXACT = 0.0;

    @Test
    void identicalTracesAreFullySimilar() {
        Map<String, Long> trace = Map.of("a.py:1", 1L, "a.py:2", 5L, "b/c.py:10", 2L);
        TraceSimilarity.Result r = TraceSimilarity.compare(trace, Map.copyOf(trace));
        assertEquals(1.0, r.similarity(), EXACT);
        assertEquals(1.0, r.overlap(), EXACT);
        assertEquals(3, r.points());
    }

    @Test
    void disjointTracesShareNothing() {
        TraceSimilarity.Result r = TraceSimilarity.compare(Map.of("a.py:1", 1L, "a.py:2", 1L), Map.of("a.py:3", 1L));
        assertEquals(0.0, r.similarity(), EXACT);
        assertEquals(0.0, r.overlap(), EXACT);
        assertEquals(3, r.points());
    }

    @Test
    void differentCountsAtTheSamePointsDisagreeButOverlap() {
        TraceSimilarity.Result r = TraceSimilarity.compare(Map.of("a.py:1", 2L, "a.py:2", 1L), Map.of("a.py:1", 3L, "a.py:2", 1L));
        assertEquals(0.5, r.similarity(), EXACT);
        assertEquals(1.0, r.overlap(), EXACT);
        assertEquals(1, r.agreeing());
        assertEquals(2, r.shared());
    }

    @Test
    void emptyTracesAreIdentical() {
        TraceSimilarity.Result r = TraceSimilarity.compare(Map.of(), Map.of());
        assertEquals(1.0, r.similarity(), EXACT);
        assertEquals(1.0, r.overlap(), EXACT);
        assertEquals(0, r.points());
    }

    @Test
    void anEmptyTraceAgainstANonEmptyOneIsZero() {
        TraceSimilarity.Result r = TraceSimilarity.compare(Map.of(), Map.of("a.py:1", 1L));
        assertEquals(0.0, r.similarity(), EXACT);
        assertEquals(0.0, r.overlap(), EXACT);
    }

    @Test
    void theDocumentedExample() {
        // docs/trace-similarity.md: U has 4 points; only line 130 agrees; lines 130 and 137 ran in both.
        Map<String, Long> healed = Map.of("colorsys.py:130", 7L, "colorsys.py:137", 2L, "colorsys.py:141", 1L);
        Map<String, Long> reference = Map.of("colorsys.py:130", 7L, "colorsys.py:137", 3L, "colorsys.py:139", 1L);
        TraceSimilarity.Result r = TraceSimilarity.compare(healed, reference);
        assertEquals(4, r.points());
        assertEquals(0.25, r.similarity(), EXACT);
        assertEquals(0.5, r.overlap(), EXACT);
    }

    @Test
    void aMixedCaseByHand() {
        // U = {1,2,3,4,5}; agree at 1 (2=2) and 5 (1=1); shared 1,2,5 -> TS 2/5, overlap 3/5.
        Map<String, Long> healed = Map.of("m.py:1", 2L, "m.py:2", 4L, "m.py:3", 1L, "m.py:5", 1L);
        Map<String, Long> reference = Map.of("m.py:1", 2L, "m.py:2", 1L, "m.py:4", 9L, "m.py:5", 1L);
        TraceSimilarity.Result r = TraceSimilarity.compare(healed, reference);
        assertEquals(0.4, r.similarity(), 1e-12);
        assertEquals(0.6, r.overlap(), 1e-12);
        assertEquals(TraceSimilarity.compare(reference, healed), r, "symmetric");
    }

    @Test
    void aPointListedWithZeroHitsCountsAsNotExecuted() {
        TraceSimilarity.Result r = TraceSimilarity.compare(Map.of("a.py:1", 1L, "a.py:9", 0L), Map.of("a.py:1", 1L));
        assertEquals(1.0, r.similarity(), EXACT);
        assertEquals(1, r.points());
    }
}
