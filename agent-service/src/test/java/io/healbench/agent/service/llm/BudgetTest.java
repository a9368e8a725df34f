package io.healbench.agent.service.llm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.healbench.agent.service.Limits;
import io.healbench.common.backbone.Prices;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** The budget's run-level cost limit across attempts at once, and its bound on a call's input. */
class BudgetTest {

    /** $1 per million tokens in and out, so a call of 1,000 input tokens and up to 1,000 output costs at most $0.002. */
    private static final Prices PRICES = new Prices(1.0, 1.0, 1.0);
    private static final int MAX_OUTPUT = 1_000;

    private static Limits runCap(double usd) {
        return new Limits(0, 0, 0, 0, 0, 0, Duration.ZERO, Duration.ZERO, 0, 0, 0, 0, usd);
    }

    private static Budget budget(RunSpend spend, double cap) {
        return new Budget(runCap(cap), Optional.of(PRICES), MAX_OUTPUT, spend, "run-1");
    }

    @Test
    void twoAttemptsCannotBothTakeTheLastRoomUnderTheRunsLimit() {
        RunSpend spend = new RunSpend();
        Budget first = budget(spend, 0.003);
        Budget second = budget(spend, 0.003);
        // Both ask before either call has returned: only one worst case ($0.002) fits under $0.003.
        assertTrue(first.beforeCall(1_000).isEmpty());
        Optional<Budget.Stop> refused = second.beforeCall(1_000);
        assertTrue(refused.isPresent(), "the second call must not be made while the first holds the room");
        assertEquals(HealPointExit.LIMITS_EXCEEDED, refused.get().exit());
        assertTrue(refused.get().why().contains("the run's cost limit"), refused.get().why());

        // The first call really cost less than its worst case: what it did not use is free again.
        first.charged(new CallUsage(1_000, 0, 10, PRICES.cost(1_000, 0, 10), true));
        assertEquals(0.00101, spend.spent("run-1"), 1e-12);
        assertTrue(second.beforeCall(900).isEmpty(), "$0.00101 spent + $0.0019 worst case fits under $0.003");
    }

    @Test
    void aFailedCallGivesBackWhatItHeld() {
        RunSpend spend = new RunSpend();
        Budget budget = budget(spend, 0.0025);
        assertTrue(budget.beforeCall(1_000).isEmpty());
        assertTrue(budget(spend, 0.0025).beforeCall(1_000).isPresent(), "held by the call in flight");
        budget.callFailed();
        assertEquals(0, spend.spent("run-1"));
        assertTrue(budget(spend, 0.0025).beforeCall(1_000).isEmpty(), "released");
    }

    @Test
    void manyAttemptsAtOnceNeverSpendPastTheRunsLimit() throws Exception {
        RunSpend spend = new RunSpend();
        double cap = 0.0501;  // room for 25 worst cases, with no floating-point tie at the 25th
        int attempts = 16;
        CyclicBarrier together = new CyclicBarrier(attempts);
        ExecutorService pool = Executors.newFixedThreadPool(attempts);
        try {
            List<Future<Integer>> calls = new ArrayList<>();
            for (int i = 0; i < attempts; i++) {
                calls.add(pool.submit(() -> {
                    Budget budget = budget(spend, cap);
                    int made = 0;
                    together.await();
                    // Each call's real cost is its worst case: any check-then-spend race would show as overspending.
                    while (budget.beforeCall(1_000).isEmpty()) {
                        Thread.yield();
                        budget.charged(new CallUsage(1_000, 0, MAX_OUTPUT, PRICES.cost(1_000, 0, MAX_OUTPUT), true));
                        made++;
                    }
                    return made;
                }));
            }
            int made = 0;
            for (Future<Integer> call : calls) {
                made += call.get();
            }
            assertEquals(25, made, "exactly as many $0.002 calls as fit under $0.0501");
            assertTrue(spend.spent("run-1") <= cap + 1e-12, "spent " + spend.spent("run-1"));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theInputBoundCountsBytesUntilTheProviderReportsThenAddsWhatIsNew() {
        InputTokenBound bound = new InputTokenBound("tools!");          // 6 bytes
        bound.added("system prompt");                                   // 13 bytes
        bound.added("é€");                                              // 2 + 3 bytes: bytes, not characters
        assertEquals(6 + 13 + 5 + 1, bound.next(), "one token per byte of all that is sent");

        bound.reported(7);                                              // the provider counted the request: 7 tokens
        assertEquals(7 + 1, bound.next());
        bound.added("a reply of 21 bytes..");
        assertEquals(7 + 21 + 1, bound.next(), "the reported count plus one token per new byte");

        bound.reported(0);                                              // no usage reported: the last report stands
        assertEquals(7 + 21 + 1, bound.next());
    }
}
