package io.healbench.sandbox.service.session;

import io.healbench.sandbox.service.model.Variant;
import java.util.Map;

/** What a caller asks for when creating a session; {@code requestId} makes the create idempotent. */
public record CreateSessionCommand(String instanceId, Variant variant, String requestId, boolean intercept, Map<String, String> labels) {}
