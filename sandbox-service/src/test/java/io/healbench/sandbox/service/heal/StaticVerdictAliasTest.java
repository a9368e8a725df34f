package io.healbench.sandbox.service.heal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.sandbox.service.model.HealAnalysis.DeltaEntry;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An alias made before the crash point ({@code view = job}, then the heal writes {@code job.out}) is never linked to
 * the heal's source by an analysis that follows the source by one name: such a CLEAN is not CLEAN.
 */
class StaticVerdictAliasTest {

    static final StaticVerdict CLEAN = new StaticVerdict("CLEAN", "", "", "", List.of(), List.of());

    @Test
    void aCleanVerdictOnASourceTheFrameAlsoHoldsUnderAnotherNameIsUnknown() {
        StaticVerdict verdict = CLEAN.consideringAliases(List.of(new DeltaEntry("attr:job.out", "both", "'a'", "'b'", List.of("view"))));
        assertEquals("UNKNOWN", verdict.verdict());
        assertEquals("unknown", verdict.forRuntime(), "no bool/None waiver for it");
        assertTrue(verdict.summary().contains("attr:job.out (its owner is also view)"), verdict.summary());
    }

    @Test
    void withoutAnAliasCleanStaysCleanAndOtherVerdictsAreUntouched() {
        assertSame(CLEAN, CLEAN.consideringAliases(List.of(new DeltaEntry("attr:job.out", "both", "'a'", "'b'", List.of()))));
        StaticVerdict tainted = new StaticVerdict("TAINTED", "attr:job.out", "shutil.rmtree", "path", List.of(), List.of());
        assertSame(tainted, tainted.consideringAliases(List.of(new DeltaEntry("attr:job.out", "both", "", "", List.of("view")))));
    }
}
