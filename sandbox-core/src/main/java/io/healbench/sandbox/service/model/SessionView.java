package io.healbench.sandbox.service.model;

import java.time.Instant;
import java.util.Map;

/** A snapshot of a session for callers. */
public record SessionView(
        String name,
        String instanceId,
        Variant variant,
        SessionState state,
        int healPoint,
        Instant createTime,
        Map<String, String> labels) {}
