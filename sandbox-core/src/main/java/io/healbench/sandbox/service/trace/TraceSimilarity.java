package io.healbench.sandbox.service.trace;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Trace similarity (TS) of a healed run H with the REFERENCE run R of the same instance (docs/trace-similarity.md).
 * A trace maps each executed instrumented point ("relpath:line") to its hit count; a point absent from a trace has
 * 0 hits. Over U = points(H) ∪ points(R):
 * <ul>
 *   <li>TS = |{p ∈ U : hits_H(p) == hits_R(p)}| / |U|, and 1.0 when U is empty;</li>
 *   <li>overlap = |points(H) ∩ points(R)| / |U| (presence-only Jaccard), and 1.0 when U is empty.</li>
 * </ul>
 */
public final class TraceSimilarity {

    private TraceSimilarity() {}

    /** The comparison of two traces: TS, overlap, and the counts they are made of. */
    public record Result(double similarity, double overlap, int points, int agreeing, int shared) {}

    public static Result compare(Map<String, Long> healed, Map<String, Long> reference) {
        Set<String> union = new HashSet<>(executed(healed));
        union.addAll(executed(reference));
        if (union.isEmpty()) {
            return new Result(1.0, 1.0, 0, 0, 0);
        }
        int agreeing = 0;
        int shared = 0;
        for (String point : union) {
            long h = hits(healed, point);
            long r = hits(reference, point);
            if (h == r) {
                agreeing++;
            }
            if (h > 0 && r > 0) {
                shared++;
            }
        }
        return new Result((double) agreeing / union.size(), (double) shared / union.size(), union.size(), agreeing, shared);
    }

    /** The executed points: a point listed with 0 hits was not executed, so it is not in the trace's point set. */
    private static Set<String> executed(Map<String, Long> trace) {
        Set<String> points = new HashSet<>();
        trace.forEach((point, count) -> {
            if (count != null && count > 0) {
                points.add(point);
            }
        });
        return points;
    }

    private static long hits(Map<String, Long> trace, String point) {
        Long count = trace.get(point);
        return count == null ? 0 : count;
    }
}
