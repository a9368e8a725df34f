package io.healbench.agent.service;

/** One local of the crashing frame: its type name and a capped repr of its value. */
public record ObservedLocal(String name, String type, String repr) {
}
