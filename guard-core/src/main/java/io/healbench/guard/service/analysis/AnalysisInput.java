package io.healbench.guard.service.analysis;

import io.healbench.common.guard.HealAnalysis;

/**
 * What AnalyzeHeal decides on (docs/healguard.md §3): the runtime's analysis of the heal's dry run, and what the
 * caller adds to it: the heal's code (whether it calls code that may change objects beyond a truncated Δk) and the
 * merged protected-operation policy as JSON (parsed, and refused when malformed, as part of the analysis).
 */
public record AnalysisInput(String healCode, HealAnalysis analysis, String policyJson) {}
