package io.healbench.bench.service;

import java.util.Set;

/** Who is calling: the tenant every read and write is scoped to, and the caller's roles in it. */
public record BenchCaller(String tenant, String subject, Set<String> roles) {

    public static final String VIEWER = "viewer";
    public static final String RUNNER = "runner";
    public static final String ADMIN = "admin";

    public boolean mayRead() {
        return roles.contains(VIEWER) || mayRun();
    }

    public boolean mayRun() {
        return roles.contains(RUNNER) || roles.contains(ADMIN);
    }
}
