package io.healbench.guard.service.gate;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The HealCore gate: decides whether healing code is HealCore, i.e. parses with the HealCore
 * grammar and breaks none of the policy's rules, and says precisely why not. Code that fails the
 * gate never runs.
 */
public final class HealCoreGate {

    public static final int DEFAULT_MAX_CODE_BYTES = 64 * 1024;

    private static final Comparator<GateDiagnostic> BY_POSITION =
            Comparator.comparingInt(GateDiagnostic::line).thenComparingInt(GateDiagnostic::column);

    private final HealCorePolicy policy;
    private final int maxCodeBytes;
    private final HealCoreUnitChecker checker;

    public HealCoreGate(HealCorePolicy policy, int maxCodeBytes) {
        if (maxCodeBytes <= 0) {
            throw new IllegalArgumentException("maxCodeBytes must be positive: " + maxCodeBytes);
        }
        this.policy = policy;
        this.maxCodeBytes = maxCodeBytes;
        this.checker = new HealCoreUnitChecker(policy);
    }

    /**
     * Checks healing code.
     *
     * @throws HealCodeTooLargeException when the code's UTF-8 size exceeds the limit; it is not parsed
     */
    public GateVerdict check(String code) {
        long size = code.getBytes(StandardCharsets.UTF_8).length;
        if (size > maxCodeBytes) {
            throw new HealCodeTooLargeException(policy.reason(Rejection.HEAL_CODE_TOO_LARGE), size, maxCodeBytes);
        }
        List<GateDiagnostic> diagnostics = new ArrayList<>();
        checker.check(code, HealCoreUnitChecker.Unit.PROGRAM, SourceOffset.START, diagnostics);
        return new GateVerdict(diagnostics.stream().distinct().sorted(BY_POSITION).toList(), policy.version());
    }

    /** The version of the grammar and policy data that decides, reported as gate_version. */
    public String version() {
        return policy.version();
    }

    public int maxCodeBytes() {
        return maxCodeBytes;
    }
}
