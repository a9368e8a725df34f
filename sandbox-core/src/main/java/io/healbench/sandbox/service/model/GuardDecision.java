package io.healbench.sandbox.service.model;

/** One decision of HealGuard about a heal: stage gate/static/dynamic, verdict accepted/rejected/blocked/observed. */
public record GuardDecision(int healPoint, String stage, String verdict, String reason) {}
